#ifndef DOCBM_CSQLITE_SHIM_H
#define DOCBM_CSQLITE_SHIM_H
/* SQLite, for the key escrow's database. SQLITE_TRANSIENT is a cast of -1 to a function
 * pointer, which Swift cannot import as a macro; it is given here as a constant. */
#include <sqlite3.h>

static const sqlite3_destructor_type cdocbm_sqlite_transient = SQLITE_TRANSIENT;
#endif
