/**
 * The numbers of tool search's ranking (issue 17), in one place: how much each field, kind of match and
 * nudge counts. Defaults were fitted on the tuning queries of the evaluation (test/fixtures/search/); a
 * test or the bench may pass others to `ToolSearch` to measure a change without editing the ranker.
 */
export interface SearchWeights {
  /** Per field (name, title, description, parameter names, parameter descriptions): weight and length normalization. */
  fields: readonly { weight: number; b: number }[];
  /** BM25's term-frequency saturation. */
  k1: number;
  /** How much a stem sharing a prefix counts (`relat` and `relationship`). */
  prefix: number;
  /** A stem one letter longer: mostly the same word in a form the stemmer missed (`assign`, `assignee`). */
  nearForm: number;
  /** A query word naming a server counts like this many mentions in the description. */
  server: number;
  /** Score × (share of the request's words a tool matched) ^ coverage: answering every word beats one word well. */
  coverage: number;
  /** × (1 + nameCoverage × share of the tool's name words the request reached). */
  nameCoverage: number;
  /** A tool that calls itself deprecated ranks below its replacement. */
  deprecated: number;
  /** A request for things in the plural favours the `list_*` tool of that name. */
  pluralList: number;
  /** Per name word the request has in the other number ("one file" against `read_multiple_files`). */
  numberMismatch: number;
  /** Hand-made related words: near-synonyms (groups marked `!`) and the rest; WordNet's relations. */
  related: { strong: number; weak: number; wordnet: number };
  /** The factor a tool's score gets when a request's intent (read / write / delete) meets the tool's kind. */
  intent: {
    deleteOnDelete: number;
    deleteOnRead: number;
    deleteOnWrite: number;
    writeOnRead: number;
    writeOnDelete: number;
    readOnOther: number;
  };
}

export const DEFAULT_WEIGHTS: SearchWeights = {
  fields: [
    { weight: 3, b: 0.3 },
    { weight: 2, b: 0.3 },
    { weight: 1, b: 0.75 },
    { weight: 0.8, b: 0.3 },
    { weight: 0.3, b: 0.75 },
  ],
  k1: 1.2,
  prefix: 0.6,
  nearForm: 0.9,
  server: 0.8,
  coverage: 0.5,
  nameCoverage: 0.3,
  deprecated: 0.7,
  pluralList: 1.25,
  numberMismatch: 0.8,
  related: { strong: 0.8, weak: 0.45, wordnet: 0.3 },
  intent: { deleteOnDelete: 1.5, deleteOnRead: 0.6, deleteOnWrite: 0.8, writeOnRead: 0.75, writeOnDelete: 0.8, readOnOther: 0.75 },
};
