/* tools/cmd_warm.c: `tilepipe warm`: the kernels of a shape list linked
 * into the kernel cache before a service's first plans need them
 * (tp_cache_warm, tilepipe/warm.h).
 *
 * Each shape of --shapes becomes the problem `bench` and `run` would make
 * of it, as the payload describes it (tp_problem_describe: its default
 * dtypes, or --dtype, and its scale tensors), C = D with beta = 1 for the
 * residual epilogue, rows padded to 16 bytes. The plans are made for
 * --gpu's figures, or for the GPU here when --gpu is not given. One line
 * per distinct kernel as it is done, then a summary. Exit status: 0 when
 * every kernel is cached, 1 when a link failed, 2 for the command line
 * (--gpu missing without a GPU, an unknown model), 3 for an error (the
 * registry, the shapes file, a shape the pair refuses), 77 when tilepipe
 * was built without the CUDA toolkit. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config.h"
#include "tilepipe/reference.h"
#include "tilepipe/tilepipe.h"
#include "tools/cli.h"
#include "tools/commands.h"
#include "tools/dtype_args.h"
#include "tools/registry_view.h"
#include "tools/shapes.h"

typedef struct warm_args {
  const char *registry, *payload, *epilogue, *dtype, *shapes, *gpu;
  int64_t jobs;
} warm_args;

static const char *summary =
    "Links every kernel that plans of the shapes in --shapes FILE (lines \"M N K\", '#'\n"
    "comments) would need into the on-disk kernel cache, several links at a time, so\n"
    "that a service's first plans read them from the cache instead of linking. The\n"
    "problems are those `run` makes: the payload's own (its default dtypes, or --dtype,\n"
    "and its scale tensors), C = D with beta = 1 for residual. The kernels are chosen\n"
    "for --gpu's figures (h100-sxm, h100-pcie, h200), else for the GPU here; no GPU is\n"
    "needed to link. Kernels the cache holds already are not linked again. The cache is\n"
    "$TILEPIPE_CACHE_DIR, else $XDG_CACHE_HOME/tilepipe, else ~/.cache/tilepipe.";

/* The problem of shape `index` for payload section `payload` (data
 * pointers NULL). */
static int describe(tp_registry *reg, const char *payload, const tp_operand_dtypes *dt,
                    size_t index, tp_shape shape, tp_gemm_desc *desc) {
  tp_ref_problem_spec spec = {.struct_size = sizeof spec, .registry = reg, .payload = payload,
                              .a = dt->a, .b = dt->b, .b_scale = dt->b_scale, .c = dt->c, .d = dt->d,
                              .sf_layout = TP_LAYOUT_SF_128X4, .m = shape.m, .n = shape.n,
                              .k = shape.k, .align_rows = 1, .alpha = 1.0f,
                              .beta = dt->c != TP_DTYPE_NONE ? 1.0f : 0.0f};
  tp_problem problem;
  char err[1024];
  if (tp_ref_problem_describe(&spec, desc, &problem, err, sizeof err) != TP_OK)
    return tp_cli_fail("warm", TP_EXIT_ERROR, "problem %zu (%lld x %lld x %lld): %s", index,
                       (long long)shape.m, (long long)shape.n, (long long)shape.k, err);
  return TP_EXIT_OK;
}

/* --gpu's figures, else the GPU's here; exit status. */
static int target_of(const warm_args *a, tp_link_target *target) {
  target->struct_size = sizeof *target;
  if (a->gpu != NULL) {
    if (tp_link_target_lookup(a->gpu, target) != TP_OK)
      return tp_cli_fail("warm", TP_EXIT_USAGE, "--gpu: %s", tp_error_message());
    return TP_EXIT_OK;
  }
  if (tp_link_target_detect(target) != TP_OK)
    return tp_cli_fail("warm", TP_EXIT_USAGE,
                       "no GPU here to plan for (%s); name the GPU the plans are for with --gpu "
                       "(h100-sxm, h100-pcie, h200)",
                       tp_error_message());
  return TP_EXIT_OK;
}

static const char *outcome_word(tp_warm_outcome o) {
  return o == TP_WARM_LINKED ? "linked" : o == TP_WARM_CACHED ? "cached" : "FAIL";
}

static void progress(void *context, const char *kernel, tp_warm_outcome outcome, double seconds,
                     const char *message) {
  (void)context;
  printf("%-7s %-44s %7.2f s%s%s\n", outcome_word(outcome), kernel, seconds, *message ? "  " : "",
         message);
  fflush(stdout);
}

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Warms the shapes' kernels on an open registry; the exit status. */
static int warm(const warm_args *a, tp_registry *reg, const tp_link_target *target,
                const tp_shape *shapes, size_t count) {
  tp_operand_dtypes dt;
  const char *no_flags[4] = {NULL, NULL, NULL, NULL};
  int rc = tp_dtype_args("warm", a->epilogue, a->dtype, no_flags, &dt);
  if (rc != TP_EXIT_OK) return rc;
  tp_gemm_desc *descs = calloc(count, sizeof *descs);
  if (descs == NULL) return tp_cli_fail("warm", TP_EXIT_ERROR, "out of host memory");
  for (size_t i = 0; i < count && rc == TP_EXIT_OK; i++)
    rc = describe(reg, a->payload, &dt, i, shapes[i], &descs[i]);
  if (rc != TP_EXIT_OK) {
    free(descs);
    return rc;
  }
  tp_warm_options opt = {.struct_size = sizeof opt, .target = target, .jobs = (int32_t)a->jobs,
                         .progress = progress};
  tp_warm_result res = {.struct_size = sizeof res};
  const double t0 = now_s();
  const tp_status st = tp_cache_warm(reg, a->payload, a->epilogue, descs, count, &opt, &res);
  free(descs);
  if (res.kernels == 0) /* nothing linked: a problem was refused, or an argument */
    return tp_cli_fail("warm", st == TP_ERR_NO_DEVICE ? TP_EXIT_NO_GPU : TP_EXIT_ERROR, "%s",
                       tp_error_message());
  char how[64] = "in this process";
  if (res.jobs > 0) snprintf(how, sizeof how, "%d worker processes", res.jobs);
  printf("%zu shape%s, %d kernel%s: %d linked, %d cached, %d failed in %.1f s (%s)\n", count,
         count == 1 ? "" : "s", res.kernels, res.kernels == 1 ? "" : "s", res.linked, res.cached,
         res.failed, now_s() - t0, how);
  if (res.cache_dir[0])
    printf("cache:    %s\n", res.cache_dir);
  else
    printf("cache:    off (TILEPIPE_CACHE_DIR=off): the kernels lived in this process only\n");
  if (st != TP_OK) return tp_cli_fail("warm", TP_EXIT_FAIL, "%s", tp_error_message());
  return TP_EXIT_OK;
}

int tp_cmd_warm(int argc, char **argv) {
  warm_args a = {.jobs = 0};
  const tp_cli_option options[] = {
      {"payload", TP_CLI_STRING, &a.payload, "P", "payload plugin", 0, 0},
      {"epilogue", TP_CLI_STRING, &a.epilogue, "E", "epilogue plugin", 0, 0},
      {"shapes", TP_CLI_STRING, &a.shapes, "FILE", "the shapes, one \"M N K\" per line", 0, 0},
      {"dtype", TP_CLI_STRING, &a.dtype, "SPEC",
       "a=DT,b=DT,c=DT,d=DT, or DT for A and B (as for run)", 0, 0},
      {"gpu", TP_CLI_STRING, &a.gpu, "MODEL",
       "plan for this GPU: h100-sxm, h100-pcie, h200 (default: the GPU here)", 0, 0},
      {"jobs", TP_CLI_INT, &a.jobs, "N", "links at a time (default 0: one per CPU)", 0, 1024},
      {"registry", TP_CLI_STRING, &a.registry, "PATH", "the registry INI", 0, 0},
  };
  const tp_cli_command cmd = {"warm",
                              "warm --payload P --epilogue E --shapes FILE [options]", summary,
                              options, (int)(sizeof options / sizeof options[0]), 0};
  const char *positional[1];
  int npos;
  int rc = tp_cli_parse(&cmd, argc, argv, positional, &npos);
  if (rc != TP_EXIT_OK) return rc < 0 ? TP_EXIT_OK : rc;
  if (a.payload == NULL || a.epilogue == NULL || a.shapes == NULL)
    return tp_cli_fail("warm", TP_EXIT_USAGE,
                       "give --payload, --epilogue and --shapes (see 'tilepipe warm --help')");
#if !TP_HAVE_CUDA
  return tp_cli_fail("warm", TP_EXIT_NO_GPU,
                     "tilepipe was built without the CUDA toolkit: no plugin carries device code "
                     "and nothing can be linked");
#endif
  tp_link_target target;
  if ((rc = target_of(&a, &target)) != TP_EXIT_OK) return rc;
  tp_shape *shapes;
  size_t count;
  char err[512];
  if (tp_shapes_read(a.shapes, &shapes, &count, err, sizeof err) != TP_OK)
    return tp_cli_fail("warm", TP_EXIT_ERROR, "%s", err);
  tp_registry *reg;
  if ((rc = tp_view_open_registry("warm", a.registry, &reg)) != TP_EXIT_OK) {
    free(shapes);
    return rc;
  }
  printf("registry: %s\ntarget:   %s: %d SMs, cc %d.%d, %u bytes of shared memory per block\n",
         tp_registry_path(reg), target.name, target.sm_count, target.cc_major, target.cc_minor,
         target.smem_per_block);
  fflush(stdout);
  rc = warm(&a, reg, &target, shapes, count);
  tp_registry_close(reg);
  free(shapes);
  return rc;
}
