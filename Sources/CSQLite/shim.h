#ifndef STRATA_CSQLITE_SHIM_H
#define STRATA_CSQLITE_SHIM_H

#include <sqlite3.h>

// SQLITE_TRANSIENT is a macro around a cast that Swift cannot import; this
// constant gives Swift the same "copy the bytes now" destructor.
static inline sqlite3_destructor_type strata_sqlite_transient(void) {
    return SQLITE_TRANSIENT;
}

#endif
