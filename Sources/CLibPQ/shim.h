#ifndef STRATA_CLIBPQ_SHIM_H
#define STRATA_CLIBPQ_SHIM_H

// libpq, PostgreSQL's C client library (Debian: libpq-dev). Only the
// StrataPostgreSQL module links it: a program that uses SQLite stores only
// never loads it.
#include <libpq-fe.h>

#endif
