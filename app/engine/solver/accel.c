/* The module ``app.engine.solver._accel``: the C searches' functions and the Clear type
 * (accel.h says which source holds each). */
#include "accel.h"

static PyMethodDef methods[] = {
    {"best", best, METH_VARARGS, "The exact best score over draw positions (best.py)."},
    {"layers", layers, METH_VARARGS, "The layered best-score search (layers.py)."},
    {"streak", streak, METH_VARARGS, "The cards of a streak to a given end (streaks.py)."},
    {"longest", longest, METH_VARARGS, "Whether a line has a streak so long (ceiling.py)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_accel", "The solver's searches in C (optional; accel.py).", -1,
    methods,
};

PyMODINIT_FUNC PyInit__accel(void) {
    if (PyType_Ready(&ClearType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    Py_INCREF(&ClearType);
    if (PyModule_AddObject(m, "Clear", (PyObject *)&ClearType) < 0) {
        Py_DECREF(&ClearType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
