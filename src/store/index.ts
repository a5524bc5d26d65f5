export { STORE_DEFAULTS, type EntryStore, type ServedCatalog } from './entry-store.js';
export { SharedStore } from './shared-store.js';
export { SqliteStore } from './sqlite-store.js';
