/* What every C search reads and keeps: a deal's tables read from Python (tables.py
 * ``Table``), the table of draw positions (or of positions proved lost) with open
 * addressing, the buffers of a search, and the clock. */
#include "accel.h"

/* The monotonic clock, in seconds: the searches' deadlines. */
double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The slot of ``key`` in a table of draw positions (open addressing): its own, or the
 * empty one where it goes. */
static Entry *tt_slot(Entry *tt, size_t cap, u64 key) {
    size_t m = cap - 1;
    size_t i = home_of(key, cap);
    while (tt[i].key != 0 && tt[i].key != key) i = (i + 1) & m;
    return &tt[i];
}

/* Keep ``best`` for ``key``, the table grown at three quarters full; -1 past ``tt_max``
 * entries or out of memory (``failed`` 2). */
int tt_put(Search *s, u64 key, long long best) {
    if ((s->tt_count + 1) * 4 > s->tt_cap * 3) {
        if (s->tt_count >= s->tt_max) {
            s->failed = 2;
            return -1;
        }
        size_t cap = s->tt_cap * 2;
        Entry *tt = calloc(cap, sizeof(Entry));
        if (tt == NULL) {
            s->failed = 2;
            return -1;
        }
        for (size_t i = 0; i < s->tt_cap; i++) {
            if (s->tt[i].key != 0) *tt_slot(tt, cap, s->tt[i].key) = s->tt[i];
        }
        free(s->tt);
        s->tt = tt;
        s->tt_cap = cap;
    }
    Entry *e = tt_slot(s->tt, s->tt_cap, key);
    if (e->key == 0) s->tt_count++;
    e->key = key;
    e->best = best;
    return 0;
}

/* A Python sequence of ints as a C array (``*out``, to free); -1 with a Python error set. */
int ints_of(PyObject *seq, long long **out, Py_ssize_t *len) {
    PyObject *fast = PySequence_Fast(seq, "expected a sequence of ints");
    if (fast == NULL) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    long long *a = malloc((size_t)(n > 0 ? n : 1) * sizeof(long long));
    if (a == NULL) {
        Py_DECREF(fast);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        a[i] = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(fast, i));
        if (a[i] == -1 && PyErr_Occurred()) {
            free(a);
            Py_DECREF(fast);
            return -1;
        }
    }
    Py_DECREF(fast);
    *out = a;
    *len = n;
    return 0;
}

/* Free what a search allocated (a search zeroed at the start may be freed at any point). */
void search_free(Search *s) {
    free(s->unc_q);
    free(s->unc_cover);
    free(s->stock);
    free(s->sfit);
    free(s->pts);
    free(s->bonus);
    free(s->tt);
    free(s->seen);
    free(s->walk);
    free(s->ends);
    free(s->hall_in);
    free(s->hall_near);
    free(s->hall_stock);
}

/* The tables both searches read (``ranks``, ``uncovers``, ``fit``, ``stock``) into ``s``;
 * -1 with a Python error set. */
int load_tables(Search *s, PyObject *ranks_o, PyObject *unc_o, PyObject *fit_o,
                       PyObject *stock_o) {
    long long *tmp = NULL;
    Py_ssize_t len = 0;
    PyObject *fast = NULL;
    if (ints_of(ranks_o, &tmp, &len) < 0) goto fail;
    if (len > 56 || len < 1) { /* a key is the mask << 8 | the stock index */
        free(tmp);
        PyErr_SetString(PyExc_ValueError, "1 to 56 tableau positions");
        goto fail;
    }
    s->n = (int)len;
    for (int i = 0; i < s->n; i++) s->rank[i] = (int)tmp[i];
    free(tmp);
    for (int i = 0; i < s->n; i++) {
        if (s->rank[i] < 0 || s->rank[i] > 13) {
            PyErr_SetString(PyExc_ValueError, "ranks: 0 to 13");
            goto fail;
        }
        s->rank_mask[s->rank[i]] |= (u64)1 << i;
    }

    fast = PySequence_Fast(unc_o, "uncovers: a sequence");
    if (fast == NULL) goto fail;
    if (PySequence_Fast_GET_SIZE(fast) != s->n) {
        PyErr_SetString(PyExc_ValueError, "uncovers: one entry a position");
        goto fail;
    }
    {
        int total = 0;
        for (int p = 0; p < s->n; p++) {
            Py_ssize_t k = PySequence_Size(PySequence_Fast_GET_ITEM(fast, p));
            if (k < 0) goto fail;
            total += (int)k;
        }
        s->unc_q = malloc((size_t)(total + 1) * sizeof(int));
        s->unc_cover = malloc((size_t)(total + 1) * sizeof(u64));
        if (s->unc_q == NULL || s->unc_cover == NULL) {
            PyErr_NoMemory();
            goto fail;
        }
        int at = 0;
        for (int p = 0; p < s->n; p++) {
            s->unc_off[p] = at;
            PyObject *pairs = PySequence_Fast(PySequence_Fast_GET_ITEM(fast, p), "pairs");
            if (pairs == NULL) goto fail;
            for (Py_ssize_t k = 0; k < PySequence_Fast_GET_SIZE(pairs); k++) {
                int q;
                unsigned long long cq;
                if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(pairs, k), "iK", &q, &cq)) {
                    Py_DECREF(pairs);
                    goto fail;
                }
                if (q < 0 || q >= s->n) {
                    Py_DECREF(pairs);
                    PyErr_SetString(PyExc_ValueError, "uncovers: a position out of range");
                    goto fail;
                }
                s->unc_q[at] = q;
                s->unc_cover[at] = cq;
                at++;
            }
            Py_DECREF(pairs);
        }
        s->unc_off[s->n] = at;
    }

    {
        PyObject *ff = PySequence_Fast(fit_o, "fit");
        if (ff == NULL) goto fail;
        if (PySequence_Fast_GET_SIZE(ff) != 15) {
            Py_DECREF(ff);
            PyErr_SetString(PyExc_ValueError, "fit: 15 masks");
            goto fail;
        }
        for (int i = 0; i < 15; i++) {
            s->fit[i] = PyLong_AsUnsignedLongLong(PySequence_Fast_GET_ITEM(ff, i));
            if (PyErr_Occurred()) {
                Py_DECREF(ff);
                goto fail;
            }
        }
        Py_DECREF(ff);
    }

    if (ints_of(stock_o, &tmp, &len) < 0) goto fail;
    if (len > 255) {
        free(tmp);
        PyErr_SetString(PyExc_ValueError, "at most 255 stock cards");
        goto fail;
    }
    s->nstock = (int)len;
    s->stock = malloc((size_t)(len + 1) * sizeof(int));
    if (s->stock == NULL) {
        free(tmp);
        PyErr_NoMemory();
        goto fail;
    }
    for (Py_ssize_t i = 0; i < len; i++) s->stock[i] = (int)tmp[i];
    free(tmp);
    s->sfit = malloc((size_t)(len + 1) * sizeof(u64));
    if (s->sfit == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    s->sfit[0] = 0;
    for (Py_ssize_t j = 1; j <= len; j++) {
        if (s->stock[j - 1] < 0 || s->stock[j - 1] > 13) {
            PyErr_SetString(PyExc_ValueError, "stock: ranks 0 to 13");
            goto fail;
        }
        s->sfit[j] = s->fit[s->stock[j - 1] + 1];
    }
    Py_XDECREF(fast);
    return 0;
fail:
    Py_XDECREF(fast);
    return -1;
}

/* The buffers of one search's walks and its table; -1 with a Python error set. */
int alloc_work(Search *s) {
    s->tt_cap = 1 << 12;
    s->tt = calloc(s->tt_cap, sizeof(Entry));
    s->seen_cap = 1 << 8;
    s->seen = calloc(s->seen_cap, sizeof(SeenSlot));
    s->walk_cap = 1 << 8;
    s->walk = malloc(s->walk_cap * sizeof(Step));
    s->ends_cap = 1 << 10;
    s->ends = malloc(s->ends_cap * sizeof(End));
    if (!s->tt || !s->seen || !s->walk || !s->ends) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}
