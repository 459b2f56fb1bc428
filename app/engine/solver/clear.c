/* The clearing search of the hints (clear.py ``clear_search``) in C.
 *
 * Clear(ranks, uncovers, fit, stock, full, hall).wins(mask, free, index, top, max_nodes,
 *      seconds, max_entries) -> (won: True, False, or None out of budget; nodes; the line)
 *
 * The clearing search without redeals, an object that keeps its table of lost positions
 * between questions on one deal and stock; its own order, the Python search's answers
 * (tests/engine/test_clear_accel.py). */
#include "accel.h"

/* Whether the tableau can be cleared without redeals: a depth-first search over positions
 * (removed mask, stock index i, the top's rank), playing first the highest free position
 * that fits (in every layout a lower row, the cards holding others up), then drawing.
 * A draw that leaves no card playable is followed straight to the next draw after which
 * one is (there is no other move in between). The game graph is acyclic, so a position
 * searched without a win is lost, and the table keeps, per (mask, top), the lowest stock
 * index from which it was proved lost: from (mask, i, top) the player can make every line
 * of (mask, j, top), j > i, by drawing j - i cards more before that line's first draw, and
 * the positions after it are the same; so (mask, i, top) lost makes (mask, j, top) lost.
 * An entry's key is (mask << 4 | top + 1) + 1, its ``best`` that index.
 *
 * The table outlives a call: the hint asks about one deal's position, then about each
 * move's, and a position proved lost stays lost. A call that runs out of its budget leaves
 * only complete proofs in it. The same question answered by the Python search (clear.py
 * ``ClearSearch._wins``, which also has the bound and restarts) gets the same answer. */

/* The bound of clear.py (its module docstring argues it): every tableau card left must be
 * played on a distinct predecessor, of a rank it may go on: a tableau card still in place,
 * a stock card still to come, or the top, which counts only if a card of the set can go on
 * it now (after any other move it is covered for good). So a set I of ranks whose cards
 * left outnumber the predecessors with a rank in N(I) cannot be cleared (Hall's theorem);
 * this checks the sets tables.py ``hall_sets`` gives (ranks r, and r, r + 2). Off with
 * jokers. */
#define HALL_SHORT(NAME, POPCOUNT)                                                          \
    static int NAME(Search *s, u64 mask, u64 free_, int idx, int top) {                     \
        u64 left = s->full & ~mask;                                                         \
        u64 fits = free_ & s->fit[top + 1];                                                 \
        int stride = s->nstock + 1;                                                         \
        for (int f = 0; f < s->nhall; f++) {                                                \
            int need = POPCOUNT(left & s->hall_in[f]);                                      \
            if (!need) continue;                                                            \
            int have = POPCOUNT(left & s->hall_near[f]) + s->hall_stock[f * stride + idx];  \
            if (need > have + 1 || (need == have + 1 && !(fits & s->hall_in[f]))) return 1; \
        }                                                                                   \
        return 0;                                                                           \
    }

HALL_SHORT(hall_short_plain, popcount)

/* The bound counts bits on every position searched: where the processor has an
 * instruction for it (x86-64 machines of the last fifteen years; the build does not assume
 * one), the same function compiled to use it (what it saves: docs/performance.md). */
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
__attribute__((target("popcnt"))) HALL_SHORT(hall_short_hw, __builtin_popcountll)
static int has_popcnt(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("popcnt");
}
#else
#define hall_short_hw hall_short_plain
static int has_popcnt(void) { return 0; }
#endif

static inline int hall_short(Search *s, u64 mask, u64 free_, int idx, int top) {
    return s->hw_popcnt ? hall_short_hw(s, mask, free_, idx, top)
                        : hall_short_plain(s, mask, free_, idx, top);
}

static inline u64 lost_key(u64 mask, int top) { return (mask << 4 | (u64)(top + 1)) + 1; }

/* 1: won (the winning moves are pushed on ``line``, the last first: a position, or -1 for
 * a draw), 0: lost, -1: out of budget or memory (``failed``). */
static int clears(Search *s, u64 mask, u64 free_, int idx, int top, int drawn, int *line,
                  int *line_len) {
    u64 key = lost_key(mask, top);
    Entry *e = tt_find(s, key);
    if (e != NULL && e->best <= idx) return 0;
    /* A node is a position reached by a play (or asked about), as in the Python search,
     * where a run of draws is a loop inside one call: the same budget, about the same
     * work; the clock is read every 1,024 positions. */
    s->nodes += !drawn;
    if (++s->visits % 1024 == 0 && out_of_time(s)) {
        s->failed = 1;
        return -1;
    }
    if (s->nodes > s->max_nodes) {
        s->failed = 1;
        return -1;
    }
    if (s->nhall && hall_short(s, mask, free_, idx, top)) return 0;
    u64 playable = free_ & s->fit[top + 1];
    while (playable) {
        int p = 63 - __builtin_clzll(playable);
        u64 b = (u64)1 << p;
        playable ^= b;
        u64 m2 = mask | b;
        int r = s->rank[p];
        int won;
        if (m2 == s->full) {
            won = 1;
        } else {
            u64 f2 = free_ & ~b;
            for (int k = s->unc_off[p]; k < s->unc_off[p + 1]; k++) {
                u64 cq = s->unc_cover[k];
                if ((cq & m2) == cq) f2 |= (u64)1 << s->unc_q[k];
            }
            won = clears(s, m2, f2, idx, r, 0, line, line_len);
        }
        if (won < 0) return -1;
        if (won) {
            line[(*line_len)++] = p;
            return 1;
        }
    }
    int j = next_draw(s, free_, idx);
    if (j <= s->nstock) {
        int won = clears(s, mask, free_, j, s->stock[j - 1], 1, line, line_len);
        if (won < 0) return -1;
        if (won) {
            for (int k = idx; k < j; k++) line[(*line_len)++] = -1;
            return 1;
        }
    }
    e = tt_find(s, key); /* the calls above may have moved the table */
    if (e != NULL) {
        if (e->best > idx) e->best = idx;
    } else if (tt_put(s, key, idx) < 0) {
        return -1;
    }
    return 0;
}

/* The clearing search as a Python object, its table kept between questions. */

typedef struct {
    PyObject_HEAD Search s;
    int busy;
} ClearObject;

static void Clear_dealloc(ClearObject *self) {
    search_free(&self->s);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int Clear_init(ClearObject *self, PyObject *args, PyObject *kwds) {
    PyObject *ranks_o, *unc_o, *fit_o, *stock_o, *hall_o;
    unsigned long long full;
    (void)kwds;
    if (!PyArg_ParseTuple(args, "OOOOKO", &ranks_o, &unc_o, &fit_o, &stock_o, &full, &hall_o))
        return -1;
    Search *s = &self->s;
    search_free(s);
    memset(s, 0, sizeof *s);
    if (load_tables(s, ranks_o, unc_o, fit_o, stock_o) < 0) return -1;
    s->tt_cap = 1 << 10; /* a sample's table: thousands of positions, rarely more */
    s->tt = calloc(s->tt_cap, sizeof(Entry));
    if (s->tt == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    s->full = full;
    PyObject *hall = PySequence_Fast(hall_o, "hall: a sequence of (ranks, their neighbours)");
    if (hall == NULL) return -1;
    Py_ssize_t nh = PySequence_Fast_GET_SIZE(hall);
    s->hall_in = calloc((size_t)nh + 1, sizeof(u64));
    s->hall_near = calloc((size_t)nh + 1, sizeof(u64));
    s->hall_stock = calloc(((size_t)nh + 1) * (size_t)(s->nstock + 1), sizeof(int));
    if (!s->hall_in || !s->hall_near || !s->hall_stock) {
        Py_DECREF(hall);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t f = 0; f < nh; f++) {
        unsigned long long in_ranks, near_ranks;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(hall, f), "KK", &in_ranks, &near_ranks)) {
            Py_DECREF(hall);
            return -1;
        }
        for (int p = 0; p < s->n; p++) {
            if (in_ranks >> s->rank[p] & 1) s->hall_in[f] |= (u64)1 << p;
            if (near_ranks >> s->rank[p] & 1) s->hall_near[f] |= (u64)1 << p;
        }
        int *counts = &s->hall_stock[f * (s->nstock + 1)];
        for (int i = s->nstock - 1; i >= 0; i--)
            counts[i] = counts[i + 1] + (int)(near_ranks >> s->stock[i] & 1);
    }
    s->nhall = (int)nh;
    s->hw_popcnt = has_popcnt();
    Py_DECREF(hall);
    return 0;
}

static PyObject *Clear_wins(ClearObject *self, PyObject *args) {
    unsigned long long mask0, free0;
    int idx, top0;
    long long max_nodes, max_entries;
    double seconds;
    if (!PyArg_ParseTuple(args, "KKiiLdL", &mask0, &free0, &idx, &top0, &max_nodes, &seconds,
                          &max_entries))
        return NULL;
    Search *s = &self->s;
    if (idx < 0 || idx > s->nstock || top0 < -1 || top0 > 13) {
        PyErr_SetString(PyExc_ValueError, "index: 0 to the stock's size, top: -1 to 13");
        return NULL;
    }
    if (self->busy) {
        PyErr_SetString(PyExc_RuntimeError, "one question at a time");
        return NULL;
    }
    int *line = malloc((size_t)(s->n + s->nstock + 1) * sizeof(int));
    if (line == NULL) return PyErr_NoMemory();
    int line_len = 0;
    s->nodes = 0;
    s->visits = 0;
    s->max_nodes = max_nodes < 0 ? ((long long)1 << 62) : max_nodes;
    s->timed = seconds >= 0;
    s->deadline = now_seconds() + seconds;
    s->tt_max = max_entries > 0 ? (size_t)max_entries : ((size_t)1 << 22);
    s->failed = 0;
    int rc;
    self->busy = 1;
    Py_BEGIN_ALLOW_THREADS
    rc = clears(s, mask0, free0, idx, top0, 0, line, &line_len);
    Py_END_ALLOW_THREADS
    self->busy = 0;
    PyObject *result = NULL;
    if (rc < 0) {
        result = Py_BuildValue("(OLN)", Py_None, s->nodes, PyList_New(0));
    } else {
        PyObject *moves = PyList_New(line_len);
        if (moves != NULL) {
            for (int k = 0; k < line_len; k++) {
                PyObject *code = PyLong_FromLong(line[line_len - 1 - k]);
                if (code == NULL) {
                    Py_CLEAR(moves);
                    break;
                }
                PyList_SET_ITEM(moves, k, code);
            }
        }
        if (moves != NULL)
            result = Py_BuildValue("(OLN)", rc ? Py_True : Py_False, s->nodes, moves);
    }
    free(line);
    return result;
}

static PyObject *Clear_lost(ClearObject *self, PyObject *Py_UNUSED(ignored)) {
    return PyLong_FromSize_t(self->s.tt_count);
}

static PyMethodDef clear_methods[] = {
    {"wins", (PyCFunction)Clear_wins, METH_VARARGS,
     "wins(mask, free, index, top, max_nodes, seconds, max_entries) -> (won or None, nodes, "
     "the winning line: positions played, -1 for a draw)"},
    {"lost", (PyCFunction)Clear_lost, METH_NOARGS, "How many positions the table holds."},
    {NULL, NULL, 0, NULL},
};

PyTypeObject ClearType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "app.engine.solver._accel.Clear",
    .tp_doc = "Clear(ranks, uncovers, fit, stock, full, hall): the clearing search of one deal and "
              "stock, its table kept between questions.",
    .tp_basicsize = sizeof(ClearObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Clear_init,
    .tp_dealloc = (destructor)Clear_dealloc,
    .tp_methods = clear_methods,
};
