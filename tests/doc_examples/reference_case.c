/* tests/doc_examples/reference_case.c: the surroundings of a docs example
 * that checks one case on the f64 reference (tilepipe/reference.h;
 * tests/test_doc_examples.sh includes it at TP_DOC_EXAMPLE): the headers,
 * and the prototype of the function the example defines. */
#include <stdint.h>
#include <string.h>
#include <tilepipe/reference.h>
#include <tilepipe/tilepipe.h>

int check_case(tp_registry *reg, const char *payload, const char *epilogue, int64_t m,
               int64_t n, int64_t k, tp_dtype d, tp_backend backend, uint64_t seed, char *err,
               size_t errlen);

#include TP_DOC_EXAMPLE
