/* tools/reference/registry.c: a registry from INI text, for the tests that
 * list their own plugins and sections (tp_ref_registry_open,
 * tilepipe/reference.h).
 *
 * The text is written as registry.ini into a fresh folder under $TMPDIR
 * (else /tmp) and opened there; the file and the folder are removed before
 * the call returns, whatever happened, since the open registry keeps what
 * it loaded and never reads the file again. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tools/reference/internal.h"

tp_status tp_ref_registry_open(tp_registry **reg, const char *ini, char *err, size_t errlen) {
  if (reg != NULL) *reg = NULL;
  if (reg == NULL || ini == NULL) {
    tp_ref_fail(err, errlen, "tp_ref_registry_open: %s is NULL", reg == NULL ? "reg" : "ini");
    return TP_ERR_INVALID_ARGUMENT;
  }
  const char *tmp = getenv("TMPDIR");
  char dir[4096], path[4096 + sizeof "/registry.ini"];
  const int n = snprintf(dir, sizeof dir, "%s/tilepipe-registry-XXXXXX",
                         tmp != NULL && *tmp ? tmp : "/tmp");
  if (n < 0 || (size_t)n >= sizeof dir) {
    tp_ref_fail(err, errlen, "cannot write a registry: $TMPDIR is %zu bytes long", strlen(tmp));
    return TP_ERR_IO;
  }
  if (mkdtemp(dir) == NULL) {
    tp_ref_fail(err, errlen, "cannot make the folder %s: %s", dir, strerror(errno));
    return TP_ERR_IO;
  }
  snprintf(path, sizeof path, "%s/registry.ini", dir);
  FILE *f = fopen(path, "w");
  int written = f != NULL && fputs(ini, f) != EOF;
  int why = errno;
  if (f != NULL && fclose(f) != 0 && written) {
    written = 0;
    why = errno;
  }
  tp_status st = TP_ERR_IO;
  if (!written)
    tp_ref_fail(err, errlen, "cannot write %s: %s", path, strerror(why));
  else if ((st = tp_registry_open(reg, path)) != TP_OK)
    tp_ref_fail(err, errlen, "%s", tp_error_message());
  remove(path);
  rmdir(dir);
  return st;
}
