/* timeline.h: when each aggregation cell's weight was sampled, in bounded memory: the
 * profile's time is cut into bins (TIMELINE_MAX_BINS at most, the width doubling as the log
 * gets longer), and per bin the upscaled weight of each cell (profile_entry) sampled in it is
 * kept -- a (bin, cell) pair. The HTML page's timeline is made from these (out_html.c): rows
 * per thread colored by kind and state, and a per-bin stack table from which the browser
 * rebuilds the flame graph of any time range by summing bins.
 *
 * Bounds: at most TIMELINE_MAX_BINS bins and TIMELINE_BIN_CELLS cells per bin, whatever the
 * number of samples. Bins start 1 ms wide (in ticks, from the header's frequency) and double
 * when a sample falls past the last one, so a log of duration D ends with bins of the smallest
 * power-of-two multiple of 1 ms that fits D in TIMELINE_MAX_BINS (between half and all of
 * them used): time resolution never depends on how many stacks there are. A sample whose bin
 * already holds TIMELINE_BIN_CELLS other cells goes to an overflow pair of its (bin, thread,
 * kind, state), without its stack; when two bins merge, the lightest cells beyond the cap go
 * there too. So totals per bin, thread, kind and state stay exact, and only the stacks of the
 * overflow weight are lost -- the same share of each bin at most, not the end of a long log.
 * Memory: 24 bytes per pair, 4 per cell, and while reading the index: 8 KiB per bin used
 * (16 MiB for all bins) and up to 32 bytes per overflow pair: at most TIMELINE_MAX_BINS *
 * TIMELINE_BIN_CELLS (1M) cell pairs, ~40 MiB, plus overflow pairs (bins x threads x states
 * at most).
 *
 * Keys: a pair's key is (bin, cell), and a cell is (thread, stack, kind, state).
 *
 * Requests (trace context, tracectx.h) are kept apart from the cells, so that a traced log's
 * cells and bins stay as few as an untraced one's: a context pair (bin, cell, context id) holds
 * the weight a context's samples put there, for the page's view of one request. At most
 * TIMELINE_MAX_CTX_PAIRS of them: when full, the lighter half of the requests kept so far (by
 * the weight of their samples until then) is let go, whole, and so are the later samples of
 * those requests (their root spans are remembered). A request kept has all its samples; the
 * slow ones, which people hunt, are the heavy ones, and stay. Memory: 40 bytes a context pair
 * and up to 32 for its index, ~18 MiB at most, plus 8 bytes and an index per request let go.
 *
 * Filled by profile.c while reading (profile_want_timeline), read-only afterwards. Never
 * prints. One thread at a time.
 */
#ifndef TIMELINE_H
#define TIMELINE_H

#include <stddef.h>
#include <stdint.h>

#include "hashtab.h"

#define TIMELINE_MAX_BINS 2048u
#define TIMELINE_BIN_CELLS 512u
#define TIMELINE_MAX_PAIRS (TIMELINE_MAX_BINS * TIMELINE_BIN_CELLS) /* cell pairs, at most */
#define TIMELINE_FIRST_BIN_NS 1000000u /* 1 ms */
#define TIMELINE_MAX_SPANS 8192u       /* GC pauses, stalls kept (each) */
#define TIMELINE_MAX_CTX_PAIRS (1u << 18)
/* a bin's row of the pair index: room for twice TIMELINE_BIN_CELLS, as two bins merging hold
 * up to that many before the lightest are moved to overflow, at half load at most */
#define TIMELINE_ROW_SLOTS (4u * TIMELINE_BIN_CELLS)

/* TIMELINE_OVER in timeline_pair.cell: an overflow pair; the other bits index
 * timeline.series, which says whose weight it is. */
#define TIMELINE_OVER 0x80000000u
#define TIMELINE_OVER_HINTS 256u

struct timeline_pair {
    uint32_t bin;
    uint32_t cell;         /* index into profile.entries, or TIMELINE_OVER | series index */
    uint64_t fp_lo, fp_hi; /* upscaled weight, fixed point (profile.h), in two halves: 24
                            * bytes a pair where an __int128 would align it to 32 */
};

/* The weight of one context's samples in one (bin, cell). */
struct timeline_ctx_pair {
    uint32_t bin;
    uint32_t cell;         /* index into profile.entries */
    uint64_t ctx;          /* the samples' CONTEXT id (tracectx.h) */
    uint64_t root;         /* the root span it stands for: requests are kept or let go whole */
    uint64_t fp_lo, fp_hi; /* upscaled weight, as timeline_pair's */
};

/* A time span of the log (ticks); a stall's probe (enum fpl_probe, 0 for a GC pause). */
struct timeline_span {
    uint64_t start, end;
    uint64_t probe;
};

/* The owner of overflow weight: a thread, kind and state. */
struct timeline_series {
    uint64_t thread_id;
    uint8_t kind, state;
};

struct timeline {
    uint64_t origin_ticks; /* bin 0 starts here */
    uint64_t bin_ticks;    /* width of a bin */
    int started;           /* origin and width are set (a sample came) */
    uint32_t nbins;        /* bins in use: the last sample's bin + 1 */
    uint32_t coarsened;    /* times the bins were doubled */
    struct timeline_pair *pairs;
    size_t npairs, cap;
    size_t over_pairs;           /* overflow pairs among them */
    struct timeline_series *series;
    size_t nseries, series_cap;
    struct hashtab series_index;
    uint32_t *cell_series; /* per cell: its series + 1 (0: not seen yet) */
    size_t cell_series_cap;
    uint32_t bin_cells[TIMELINE_MAX_BINS]; /* cell pairs per bin */
    /* by series (modulo): the index + 1 of its latest overflow pair, a hint checked against
     * the pair before use (samples come in time order: most of a full bin's samples go to
     * the same few overflow pairs, which the index over every bin finds through a cache
     * miss) */
    uint32_t over_hint[TIMELINE_OVER_HINTS];
    /* hiccup mode's GC pauses and probe stalls (FORMAT.md 5.13, 5.14), for the same time
     * axis: the first TIMELINE_MAX_SPANS of each, in log order; the rest only counted */
    struct timeline_span *gcs, *stalls;
    size_t ngcs, nstalls;
    uint64_t gcs_over, stalls_over;
    uint64_t over_samples;       /* samples sent to overflow pairs as they came (not those
                                  * moved there when bins merged) */
    uint64_t early_samples;      /* samples before the origin, put in bin 0 */
    /* key -> pair, while reading: a cell pair through its bin's row of bin_index (open
     * addressing by cell, pair + 1, 0 empty), an overflow pair through `index`. A log is
     * read in time order, so nearly every sample probes the row of the newest bin, which
     * stays in the CPU's cache where one table for all pairs would not */
    uint32_t (*bin_index)[TIMELINE_ROW_SLOTS];
    uint32_t index_rows;         /* rows that may hold entries: the highest bin + 1 */
    struct hashtab index;
    /* requests: context pairs of the requests kept */
    struct timeline_ctx_pair *cpairs;
    size_t ncpairs, ccap;
    struct hashtab cindex;       /* (bin, cell, ctx) -> cpairs, while reading */
    uint64_t *let_go;            /* root spans of the requests let go */
    size_t nlet_go, let_go_cap;
    struct hashtab let_go_index; /* root -> let_go */
    uint32_t ctx_purges;         /* times the lighter half was let go */
    uint64_t ctx_let_go;         /* samples of requests let go (counted when they came) */
    unsigned __int128 ctx_unknown; /* weight of samples whose context id was never defined */
};

/* Prepares an empty timeline (caller storage). */
void timeline_init(struct timeline *tl);

/* Frees what tl holds; tl is empty again. */
void timeline_destroy(struct timeline *tl);

/* Sets the origin and first width, before the first sample: origin_ticks is the log's start,
 * ticks_per_sec its clock's frequency (0 if unknown: 1 GHz is assumed; only the bins' width
 * depends on it). Later calls do nothing. */
void timeline_start(struct timeline *tl, uint64_t origin_ticks, uint64_t ticks_per_sec);

/* Adds fp, a sample's upscaled weight, taken at ticks, to the pair of (bin, cell); thread_id,
 * kind and state are the cell's (for an overflow pair). Returns 0 or -ENOMEM. */
int timeline_add(struct timeline *tl, uint64_t ticks, uint32_t cell, uint64_t thread_id,
                 uint8_t kind, uint8_t state, unsigned __int128 fp);

/* timeline_add, with the caller's memo of the cell's series (*series: its index + 1, 0 not
 * known yet; the timeline fills it): a sample that goes to its series' overflow pair reads
 * the series there instead of in the timeline's array over every cell, a cache miss per
 * sample in a log of millions of cells. *series must be 0 or what this timeline wrote. */
int timeline_add_series(struct timeline *tl, uint64_t ticks, uint32_t cell, uint64_t thread_id,
                        uint8_t kind, uint8_t state, unsigned __int128 fp, uint32_t *series);

/* Adds fp, the upscaled weight of a sample taken at ticks in cell, to its context's pair: ctx
 * is its CONTEXT id, root the root span that id stands for (which requests are kept is decided
 * by it). Call right after timeline_add of the same sample. Returns 0 or -ENOMEM. */
int timeline_ctx_add(struct timeline *tl, uint64_t ticks, uint32_t cell, uint64_t ctx,
                     uint64_t root, unsigned __int128 fp);

/* Whether the requests of root span root are kept (the context pairs hold all of their
 * samples). */
int timeline_ctx_kept(const struct timeline *tl, uint64_t root);

/* Keeps a GC pause (gc set) or a stall of probe (enum fpl_probe) [start, end), in ticks.
 * Returns 0 or -ENOMEM. */
int timeline_span_add(struct timeline *tl, int gc, uint64_t probe, uint64_t start, uint64_t end);

/* Ends reading: orders the pairs by bin (ascending; within a bin in no given order) and
 * frees the index. */
void timeline_finish(struct timeline *tl);

/* A pair's weight. */
static inline unsigned __int128 timeline_fp(const struct timeline_pair *pr)
{
    return (unsigned __int128)pr->fp_hi << 64 | pr->fp_lo;
}

/* A context pair's weight. */
static inline unsigned __int128 timeline_ctx_fp(const struct timeline_ctx_pair *cp)
{
    return (unsigned __int128)cp->fp_hi << 64 | cp->fp_lo;
}

/* Bytes held, for estimates and benchmarks. */
size_t timeline_bytes(const struct timeline *tl);

#endif
