/* core/file_kind.h: what a path is when it is no regular file, in words for
 * messages ("a FIFO", "a directory").
 *
 * Files the core reads (the registry, kernel cache entries) and libraries
 * it loads must be regular files: a FIFO with no writer would block a read
 * forever, a device never ends. Callers stat (or fstat an fd opened with
 * O_NONBLOCK) and refuse anything for which this returns a non-empty
 * string. Internal to libtilepipe. */
#ifndef TP_CORE_FILE_KIND_H
#define TP_CORE_FILE_KIND_H

#include <sys/stat.h>

/* "" for a regular file; else what mode says it is instead. */
const char *tp_file_kind(mode_t mode);

#endif
