/* tests/doc_examples/payload_problem.c: the surroundings of a docs example
 * from examples/int8_w8a8/problem.c (tests/test_doc_examples.sh includes it
 * at TP_DOC_EXAMPLE): the payload's header, which declares the slot and
 * the operand check it calls. */
#include "examples/int8_w8a8/int8_w8a8.h"

#include TP_DOC_EXAMPLE
