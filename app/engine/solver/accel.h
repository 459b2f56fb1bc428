/* The solver's optional C searches (app/engine/solver/accel.py is their Python glue): one
 * extension module, ``app.engine.solver._accel``, built by the normal install where a C
 * compiler exists (setup.py, ``optional=True``). The pure Python searches are the fallback
 * and the reference: each C search searches the same positions in the same order as its
 * Python form (or, for the clearing search, gives its answers), which the tests check
 * (tests/engine/test_best_accel.py, test_clear_accel.py, test_solver_agreement.py).
 *
 * The sources, named for the Python module each follows:
 *   accel.c    the module: its functions and the Clear type;
 *   tables.c   a deal's tables read from Python, the table of draw positions, the clock;
 *   streaks.c  the streak walk both best-score searches make, and ``streak``;
 *   best.c     ``best``, the exact best score (best.py);
 *   bounds.c   the caps on a streak and the bound on the points to come (bounds.py);
 *   ceiling.c  ``longest``, the proof of the ceiling on every streak (ceiling.py);
 *   layers.c   ``layers``, the layered search (layers.py);
 *   clear.c    ``Clear``, the clearing search of the hints (clear.py).
 * This header holds what they share: the search's state, the small functions every search
 * inlines, and the functions one source gives the others (hidden: the module exports
 * ``PyInit__accel`` alone). */
#ifndef TRIPEAKS_ACCEL_H
#define TRIPEAKS_ACCEL_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__GNUC__)
#define INTERNAL __attribute__((visibility("hidden")))
#else
#define INTERNAL
#endif

typedef uint64_t u64;

/* A draw position's value: key (mask << 8 | stock index) + 1, 0 for an empty slot. */
typedef struct {
    u64 key;
    int64_t best;
} Entry;

/* A mask one walk has reached, with the tops (bit r: rank r, 0 a joker) it was reached with. */
typedef struct {
    u64 mask;
    uint32_t gen;
    uint16_t tops;
    uint16_t pad;
} SeenSlot;

typedef struct {
    u64 mask;
    u64 free;
    int top;
} Step;

typedef struct {
    u64 mask;
    u64 free;
    int next; /* the next draw position's stock index, past the stock: none */
} End;

typedef struct {
    int n;
    u64 full;
    int rank[64];
    int unc_off[65];
    int *unc_q;
    u64 *unc_cover;
    u64 fit[15];
    int nstock;
    int *stock;
    u64 *sfit; /* sfit[j]: the positions whose card may go on the top after j draws */
    long long *pts;
    Py_ssize_t npts;
    long long *bonus;
    Py_ssize_t nbonus;
    long long penalty;
    u64 peak_mask;
    u64 rank_mask[14]; /* the positions holding each rank (0: a joker) */
    int wraps;         /* a King and an Ace are neighbours */
    /* the clearing search's bound: Hall's sets I of ranks as (the positions holding a rank of
     * I, those holding a rank of N(I)), and hall_stock[f * (nstock + 1) + i]: the stock
     * cards from index i on with a rank in the f-th set's N(I) */
    int nhall;
    int hw_popcnt; /* the processor counts bits (hall_short) */
    u64 *hall_in, *hall_near;
    int *hall_stock;
    long long nodes;
    long long visits; /* the clearing search's positions, drawn to or not */
    long long max_nodes;
    int timed;
    double deadline;
    int failed; /* 1: out of budget, 2: out of memory */
    /* the table of draw positions */
    Entry *tt;
    size_t tt_cap, tt_count, tt_max;
    /* one streak's walk: the masks it reached (each the end of a streak) with their tops;
     * ``seen_count`` counts the states (mask, top), ``seen_masks`` the masks */
    SeenSlot *seen;
    size_t seen_cap, seen_count, seen_masks;
    uint32_t gen;
    Step *walk;
    size_t walk_len, walk_cap;
    End *ends;
    size_t ends_len, ends_cap;
    /* the layered search: a walk stops after ``walk_limit`` steps (0: never), and says so */
    long long walk_limit;
    int walk_cut;
    /* no streak of any line takes more cards than this (ceiling.py ``streak_ceiling``) */
    int longest;
} Search;

static inline u64 mix(u64 x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

INTERNAL double now_seconds(void);

static inline int out_of_time(Search *s) { return s->timed && now_seconds() > s->deadline; }

static inline int popcount(u64 x) {
#if defined(__POPCNT__)
    return __builtin_popcountll(x);
#else
    x = x - ((x >> 1) & 0x5555555555555555ULL);
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
    return (int)((x * 0x0101010101010101ULL) >> 56);
#endif
}

static inline u64 tt_key(u64 mask, int idx) { return (mask << 8 | (u64)idx) + 1; }

/* Where open addressing starts looking for ``key`` in a table of ``cap`` slots (a power of 2). */
static inline size_t home_of(u64 key, size_t cap) { return (size_t)mix(key) & (cap - 1); }

static inline Entry *tt_find(Search *s, u64 key) {
    size_t m = s->tt_cap - 1;
    size_t i = home_of(key, s->tt_cap);
    for (;;) {
        Entry *e = &s->tt[i];
        if (e->key == key) return e;
        if (e->key == 0) return NULL;
        i = (i + 1) & m;
    }
}

/* The next draw position after stock index ``idx`` where one of the ``free_`` cards can be
 * played: the first later index whose top one of them fits, nstock + 1 when none does
 * (best.py: a draw with no card to play is followed straight to it). */
static inline int next_draw(Search *s, u64 free_, int idx) {
    int j = idx + 1;
    while (j <= s->nstock && !(free_ & s->sfit[j])) j++;
    return j;
}

/* The bonus of every peak left (``mask`` removed). */
static inline long long peaks_left(Search *s, u64 mask) {
    return s->bonus[popcount(s->peak_mask)] - s->bonus[popcount(mask & s->peak_mask)];
}

/* tables.c */
INTERNAL int tt_put(Search *s, u64 key, long long best);
INTERNAL int ints_of(PyObject *seq, long long **out, Py_ssize_t *len);
INTERNAL void search_free(Search *s);
INTERNAL int load_tables(Search *s, PyObject *ranks_o, PyObject *unc_o, PyObject *fit_o,
                         PyObject *stock_o);
INTERNAL int alloc_work(Search *s);

/* streaks.c */
INTERNAL int walk(Search *s, u64 mask0, u64 free0, int top0);
INTERNAL PyObject *streak(PyObject *self, PyObject *args);

/* best.c */
INTERNAL int setup_best(Search *s, PyObject *ranks_o, PyObject *unc_o, PyObject *fit_o,
                        PyObject *stock_o, PyObject *pts_o, PyObject *bonus_o,
                        long long penalty, u64 peak_mask, u64 full, int top0, int streak,
                        long long max_nodes, double seconds);
INTERNAL PyObject *best(PyObject *self, PyObject *args);

/* bounds.c */
INTERNAL void rank_counts(Search *s, u64 mask, int *counts);
INTERNAL void streak_caps(Search *s, const int *counts, int top, int *first, int *anyway);
INTERNAL long long points_ahead(Search *s, u64 mask, const int *counts, int top, int streak,
                                int draws);

/* ceiling.c */
INTERNAL PyObject *longest(PyObject *self, PyObject *args);

/* layers.c */
INTERNAL PyObject *layers(PyObject *self, PyObject *args);

/* clear.c */
INTERNAL extern PyTypeObject ClearType;

#endif
