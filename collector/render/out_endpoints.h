/* out_endpoints.h: the summary's endpoints (dev.flyprof.Context): for each endpoint name, the
 * requests named with it and the CPU and wall time their samples stand for, by thread state,
 * heaviest first. Samples of root spans never named go to TRACECTX_UNNAMED. Needs a profile
 * read with context_totals set (its ctx_entries; otherwise the list is empty).
 * Any thread; prints only into the given stream.
 */
#ifndef OUT_ENDPOINTS_H
#define OUT_ENDPOINTS_H

#include <stdio.h>

#include "profile.h"

/* The text section ("Endpoints by wall time: ..."), nothing when the log has no context.
 * Returns 0, or -ENOMEM / -EIO. */
int out_endpoints_text(FILE *f, const struct profile *p);

/* The JSON member `"endpoints":[{"name":..,"requests":N,"cpu_ns":N,"wall_ns":N,
 * "wall_by_state_ns":{..},"starvation":x|null},...]` (collector/format/SUMMARY_JSON.md).
 * starvation: starvation.h over the endpoint's own samples (null when its threads were never
 * sampled RUNNING, or past the STARVATION_ROWS heaviest endpoints). Returns as above. */
int out_endpoints_json(FILE *f, const struct profile *p);

#endif
