#ifndef STRATA_CSQLITE_SHIM_H
#define STRATA_CSQLITE_SHIM_H

#include <sqlite3.h>
#include <dlfcn.h>

// SQLITE_TRANSIENT is a macro around a cast that Swift cannot import; this
// constant gives Swift the same "copy the bytes now" destructor.
static inline sqlite3_destructor_type strata_sqlite_transient(void) {
    return SQLITE_TRANSIENT;
}

// sqlite3_db_config is variadic, which Swift cannot call. Turns off
// double-quoted string literals in DML and DDL: with them on, a column that
// is missing reads as its own name as a string instead of failing.
static inline int strata_disable_double_quoted_strings(sqlite3 *db) {
    int code = sqlite3_db_config(db, SQLITE_DBCONFIG_DQS_DML, 0, (int *)0);
    if (code != SQLITE_OK) return code;
    return sqlite3_db_config(db, SQLITE_DBCONFIG_DQS_DDL, 0, (int *)0);
}

// A function of the SQLite library the process loaded, or NULL. The session
// extension (sqlite3session_*, sqlite3changeset_*) is looked up this way: the
// system SQLite of some platforms is built without it, and a program linked
// against a missing symbol would not start at all.
static inline void *strata_sqlite_symbol(const char *name) {
#ifdef __APPLE__
    return dlsym(RTLD_DEFAULT, name);
#else
    return dlsym((void *)0, name);  // glibc's RTLD_DEFAULT
#endif
}

// The bytes the process's heap has handed out and not had back (glibc's
// mallinfo2, whose struct Swift cannot take from dlsym); 0 elsewhere. The
// benchmarks count a fetch's bytes per object with it.
#if defined(__GLIBC__)
#include <malloc.h>
static inline size_t strata_heap_in_use(void) { return mallinfo2().uordblks; }
#else
static inline size_t strata_heap_in_use(void) { return 0; }
#endif

// Asks the processor to bring the cache line at `address` in without
// waiting for it: a hint, which an address outside the process's memory
// does not fault. The unique import's ID table (TextIDTable) asks for the
// slots of a few IDs ahead of the one it records, so that their cache
// misses overlap rather than follow one another. Called from Strata's
// inlinable code, so the modules that use Strata see it too: CSQLite must
// stay a public import of Strata.
static inline void strata_prefetch(const void *address) {
    __builtin_prefetch(address);
}

#endif
