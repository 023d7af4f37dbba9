/** Client configurator: detect MCP clients, add/remove Spillway's entry safely, import their servers, undo. */
export * from './types.js';
export * from './config-errors.js';
export { createClientRegistry, CLIENT_DEFINITIONS, importKey, toImportCandidate, redactEntryText } from './registry.js';
export type { ClientRegistry, ClientRegistryOptions, ClientStatus, ConsentPreview, ChangeOutcome, DesiredEntries } from './registry.js';
export type { ClientDefinition, ConfigLocation } from './client-definition.js';
export { applyConnect, applyDisconnect, entryState, type ClientDetection, type TextChange } from './client-config.js';
export type { BackupRecord, BackupOptions, WriteReason } from './backup-store.js';
export { editConfigFile, type EditOutcome } from './safe-write.js';
export { restoreLatestBackup, type RestoreOutcome } from './restore-backup.js';
export { listDirOnDisk, type ListDir } from './os-paths.js';
