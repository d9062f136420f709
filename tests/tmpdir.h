/* tests/tmpdir.h: scratch folders and files for the tests.
 *
 * Every test that writes files writes them into a fresh folder of its own
 * under $TMPDIR (else /tmp; never the source or build tree) and removes the
 * folder when done. These calls report failure by their return value
 * (0 on success, -1 with errno set), so they serve in main() before Check
 * runs as well as inside a test. */
#ifndef TP_TESTS_TMPDIR_H
#define TP_TESTS_TMPDIR_H

#include <stddef.h>

/* Creates the folder "$TMPDIR/<prefix>-XXXXXX" and writes its physical,
 * absolute path (as getcwd() reports it after a chdir there) into buf. */
int tp_test_tmpdir_make(char *buf, size_t size, const char *prefix);

/* Removes path and everything under it; symbolic links are removed, never
 * followed. */
int tp_test_tmpdir_remove(const char *path);

/* Writes size bytes of data to the file dir/name, replacing it; the folders
 * that name contains ("sub/dir/file") are created as needed. */
int tp_test_file_write(const char *dir, const char *name, const void *data, size_t size);

#endif
