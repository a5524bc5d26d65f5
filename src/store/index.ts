export {
  STORE_DEFAULTS,
  type CatalogKey,
  type CatalogMember,
  type CatalogMembers,
  type EntryStore,
  type NewCatalog,
  type StoredCatalog,
} from './entry-store.js';
export { SharedStore } from './shared-store.js';
export { SqliteStore } from './sqlite-store.js';
