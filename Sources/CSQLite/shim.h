#ifndef DOCBM_CSQLITE_SHIM_H
#define DOCBM_CSQLITE_SHIM_H
/* SQLite, for the key escrow's database. SQLITE_TRANSIENT is a cast of -1 to a function
 * pointer, which Swift cannot import as a macro; it is given here as a constant. */
#include <sqlite3.h>

static const sqlite3_destructor_type cdocbm_sqlite_transient = SQLITE_TRANSIENT;

/* SQLITE_CONFIG_PAGECACHE without a buffer and without pages to allocate in advance:
 * sqlite3_config is variadic, which Swift cannot call. */
static inline int cdocbm_sqlite_page_cache_on_demand(void) {
  return sqlite3_config(SQLITE_CONFIG_PAGECACHE, (void *)0, 0, 0);
}
#endif
