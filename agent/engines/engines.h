/* engines.h: the table of every engine (engine.h), which control.c loops over. Apart from
 * engine.h so that the engines, which include the interface, do not include the table that
 * includes them. */
#ifndef ENGINES_H
#define ENGINES_H

#include <stddef.h>

#include "engine.h"

#define ENGINES_MAX 32 /* the most entries the table may have (control.c's bitmasks) */

/* The table, in start order (engines.c); stop runs in the reverse order. */
extern const struct engine *const engines[];
extern const size_t engines_count;

/* The CPU engine of enum fpl_engine id; cputimer's for an unknown id (the default engine). */
const struct engine *engine_of(int id);

#endif
