/* tools/cmd_link.c: `tilepipe link`: the fused kernel of a payload x
 * epilogue pair, linked without a GPU, its ptxas report checked.
 *
 * This is what CI runs on a machine with the CUDA toolkit and no GPU: the
 * library does everything a CUDA plan does up to loading the kernel
 * (tp_link_check, tilepipe/link.h), for the figures of an H100
 * (tp_link_check_target). The problem is a representative one, as the
 * payload describes it (tp_problem_describe: its default dtypes, or
 * --dtype, and its scale tensors) at -m/-n/-k (default 4096 each), rows
 * padded to 16 bytes. Which extra operands it carries depends on the
 * epilogue, which the tool cannot know, so it offers, in order, the problem
 * with C (beta = 1) and a bias, with the bias only, with C only, and with
 * neither, and links the first one the pair's plan slots accept: the
 * richest kernel the epilogue makes (residual links with its source ring,
 * store without).
 *
 * --all-tiles links, beyond the heuristic's pick, every kernel the planner
 * can pick for the pair and problem: each tile of the skeleton's table
 * (tilepipe/plugin/kernel/tiles.h: output tile and cluster) forced for one link
 * through the payload's tuning keys (tp_link_check_with, "tile=MxNxK,
 * cluster=Cx1" with the pick's tile K). A tile the payload's plan does not
 * take for the problem (a D dtype without that width, say) is listed as
 * not taken; a payload that refuses the keys themselves is an error.
 *
 * --all does every pair of usable, enabled plugins that both carry device
 * code (the others are listed as skipped). Exit status: 0 when every link
 * passed, 1 when one failed (the link or its log check), 3 for an error
 * (the registry; a named plugin that is unknown, unusable, disabled or
 * without device code; a pair whose plans refuse every problem, as a dtype
 * the payload does not take; tiles that cannot be forced), 77 when
 * tilepipe was built without the CUDA toolkit. With --all, 1 wins over
 * 3. */
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "tilepipe/plugin/kernel/tiles.h"
#include "tilepipe/reference.h"
#include "tilepipe/tilepipe.h"
#include "tools/cli.h"
#include "tools/commands.h"
#include "tools/dtype_args.h"
#include "tools/registry_view.h"

typedef struct link_args {
  const char *registry, *payload, *epilogue, *dtype, *bias_dtype;
  int64_t m, n, k;
  int all, all_tiles;
} link_args;

/* The problem variants offered to a pair, richest first. */
static const struct {
  int c, bias;
} variants[] = {{1, 1}, {0, 1}, {1, 0}, {0, 0}};
#define NUM_VARIANTS (int)(sizeof variants / sizeof variants[0])

/* Variant v of the representative problem for payload section `payload`
 * into *desc; the exit status: TP_EXIT_USAGE for a bad --dtype (printed),
 * TP_EXIT_ERROR when the payload cannot describe it (why into refusal). */
static int describe(const link_args *a, tp_registry *reg, const char *payload, int v,
                    tp_gemm_desc *desc, char *refusal, size_t size) {
  tp_operand_dtypes dt;
  const char *no_flags[4] = {NULL, NULL, NULL, NULL};
  /* "" as the epilogue: no default C, since the variants decide C. */
  int rc = tp_dtype_args("link", "", a->dtype, no_flags, &dt);
  if (rc != TP_EXIT_OK) return rc;
  const int c = variants[v].c;
  tp_ref_problem_spec spec = {
      .struct_size = sizeof spec, .registry = reg, .payload = payload, .a = dt.a, .b = dt.b,
      .b_scale = dt.b_scale,
      .d = dt.d, .c = c ? (dt.c != TP_DTYPE_NONE ? dt.c : dt.d) : TP_DTYPE_NONE,
      .bias = variants[v].bias ? tp_dtype_from_name(a->bias_dtype) : TP_DTYPE_NONE,
      .sf_layout = TP_LAYOUT_SF_128X4, .m = a->m, .n = a->n, .k = a->k, .align_rows = 1,
      .alpha = 1.0f, .beta = c ? 1.0f : 0.0f};
  tp_problem problem;
  if (tp_ref_problem_describe(&spec, desc, &problem, refusal, size) != TP_OK)
    return TP_EXIT_ERROR;
  return TP_EXIT_OK;
}

/* A plugin named on the command line: known, of its kind, usable, enabled,
 * with device code. Else prints why and returns TP_EXIT_ERROR. */
static int check_named(tp_registry *reg, const char *name, tp_plugin_kind kind) {
  tp_plugin_info info;
  if (tp_registry_find(reg, name, &info) != TP_OK)
    return tp_cli_fail("link", TP_EXIT_ERROR, "%s", tp_error_message());
  if (info.kind != kind)
    return tp_cli_fail("link", TP_EXIT_ERROR, "'%s' is a%s %s plugin; --%s needs a%s %s", name,
                       info.kind == TP_PLUGIN_EPILOGUE ? "n" : "", tp_plugin_kind_name(info.kind),
                       tp_plugin_kind_name(kind), kind == TP_PLUGIN_EPILOGUE ? "n" : "",
                       tp_plugin_kind_name(kind));
  if (info.status != TP_OK)
    return tp_cli_fail("link", TP_EXIT_ERROR, "'%s' is unusable: %s", name, info.error);
  if (!info.enabled) return tp_cli_fail("link", TP_EXIT_ERROR, "'%s' is disabled", name);
  if (!info.has_device_code)
    return tp_cli_fail("link", TP_EXIT_ERROR, "'%s' carries no device code: nothing to link",
                       name);
  return TP_EXIT_OK;
}

/* "PASS  kernel ..., registers ..." of a clean link. */
static void print_pass(const tp_link_result *r) {
  printf("PASS  kernel %s, %d registers, %d bytes stack, spills %d bytes stored / %d loaded",
         r->kernel, r->registers, r->stack_bytes, r->spill_store_bytes, r->spill_load_bytes);
}

/* The skeleton's table of tiles: output tile and cluster. */
typedef struct table_tile {
  int32_t m, n, cluster_m;
} table_tile;
#define TABLE_TILE(BM, BN, CM, D_SET, SPEED, F, CTX) {BM, BN, CM},
static const table_tile table_tiles[] = {TP_KERNEL_TILES(TABLE_TILE, _, _)};
#undef TABLE_TILE
#define NUM_TABLE_TILES (int)(sizeof table_tiles / sizeof table_tiles[0])

/* Every tile of the table forced on the pair for desc, whose heuristic
 * pick was `pick` (its tile K); one line each. The exit status: 0 when
 * every tile taken passed, 1 when one failed, 3 when the payload refuses
 * the tuning keys or takes no tile. */
static int link_tiles(tp_registry *reg, const char *payload, const char *epilogue,
                      const tp_gemm_desc *desc, const tp_link_result *pick) {
  int linked = 0, failed = 0;
  for (int i = 0; i < NUM_TABLE_TILES; i++) {
    const table_tile *t = &table_tiles[i];
    char tuning[96];
    snprintf(tuning, sizeof tuning, "tile=%dx%dx%d,cluster=%dx1", t->m, t->n, pick->tile_k,
             t->cluster_m);
    const tp_link_options opt = {.struct_size = sizeof opt, .tuning = tuning};
    tp_link_result r = {.struct_size = sizeof r};
    const tp_status st = tp_link_check_with(reg, payload, epilogue, desc, &opt, &r);
    printf("  tile %dx%d c%d: ", t->m, t->n, t->cluster_m);
    if (st == TP_OK) {
      print_pass(&r);
      printf("\n");
      linked++;
    } else if (!r.planned && st == TP_ERR_REGISTRY) {
      printf("REFUSED  %s\n", tp_error_message());
      return tp_cli_fail("link", TP_EXIT_ERROR,
                         "%s takes no tile forced through its tuning keys: --all-tiles cannot "
                         "link its kernels one by one",
                         payload);
    } else if (!r.planned || !r.kernel[0]) { /* a plan slot or gpu_plan refused the tile */
      printf("not taken: %s\n", tp_error_message());
    } else {
      printf("FAIL  %s\n", tp_error_message());
      failed++;
    }
  }
  printf("%s x %s: %d of %d tiles taken, %d linked clean, %d failed\n", payload, epilogue,
         linked + failed, NUM_TABLE_TILES, linked, failed);
  if (failed) return TP_EXIT_FAIL;
  return linked ? TP_EXIT_OK : TP_EXIT_ERROR;
}

/* Links one pair of usable plugins with device code and prints its line
 * (with --all-tiles, one more per tile of the table); returns the exit
 * status: a refusal by the plans is no verdict on the link (TP_EXIT_ERROR,
 * as `run` exits when it cannot plan). */
static int link_pair(const link_args *a, tp_registry *reg, const char *payload,
                     const char *epilogue) {
  tp_link_result res = {.struct_size = sizeof res};
  tp_status st = TP_ERR_INVALID_ARGUMENT;
  char refusal[1024] = "";
  tp_gemm_desc desc;
  int v = 0;
  for (; v < NUM_VARIANTS; v++) {
    const int rc = describe(a, reg, payload, v, &desc, refusal, sizeof refusal);
    if (rc == TP_EXIT_ERROR) printf("%s x %s: REFUSED  %s\n", payload, epilogue, refusal);
    if (rc != TP_EXIT_OK) return rc;
    st = tp_link_check(reg, payload, epilogue, &desc, &res);
    if (st == TP_OK || res.planned) break;
    snprintf(refusal, sizeof refusal, "%s", tp_error_message());
  }
  printf("%s x %s: ", payload, epilogue);
  if (st == TP_OK) {
    print_pass(&res);
    printf(" (C %s, bias %s; grid %u, %u bytes smem, %llu bytes workspace)\n",
           variants[v].c ? "yes" : "no", variants[v].bias ? "yes" : "no", res.grid[0],
           res.smem_bytes, (unsigned long long)res.workspace_bytes);
    return a->all_tiles ? link_tiles(reg, payload, epilogue, &desc, &res) : TP_EXIT_OK;
  }
  if (!res.planned) {
    printf("REFUSED  the pair's plans take none of the problems; the last refusal: %s\n",
           refusal);
    return TP_EXIT_ERROR;
  }
  printf("FAIL  %s\n", tp_error_message());
  return TP_EXIT_FAIL;
}

/* Every usable, enabled plugin of `kind` with device code; the others are
 * named as skipped. */
static size_t linkable(tp_registry *reg, tp_plugin_kind kind, const char **names, size_t max) {
  size_t n = 0;
  for (size_t i = 0; i < tp_registry_count(reg); i++) {
    tp_plugin_info info;
    if (tp_registry_get(reg, i, &info) != TP_OK || info.kind != kind) continue;
    if (info.status != TP_OK || !info.enabled)
      printf("skip %s: %s\n", info.name, tp_view_state(&info));
    else if (!info.has_device_code)
      printf("skip %s: no device code\n", info.name);
    else if (n < max)
      names[n++] = info.name;
  }
  return n;
}

static int link_all(const link_args *a, tp_registry *reg) {
  enum { MAX_PLUGINS = 64 };
  const char *payloads[MAX_PLUGINS], *epilogues[MAX_PLUGINS];
  const size_t np = linkable(reg, TP_PLUGIN_PAYLOAD, payloads, MAX_PLUGINS);
  const size_t ne = linkable(reg, TP_PLUGIN_EPILOGUE, epilogues, MAX_PLUGINS);
  if (np == 0 || ne == 0)
    return tp_cli_fail("link", TP_EXIT_FAIL, "no payload x epilogue pair carries device code");
  int rc = TP_EXIT_OK, passed = 0;
  for (size_t p = 0; p < np; p++)
    for (size_t e = 0; e < ne; e++) {
      const int one = link_pair(a, reg, payloads[p], epilogues[e]);
      passed += one == TP_EXIT_OK;
      if (one == TP_EXIT_FAIL || rc == TP_EXIT_OK) rc = one;
    }
  printf("%d of %zu pairs passed\n", passed, np * ne);
  return rc;
}

static const char *summary =
    "Links the fused GPU kernel of a payload x epilogue pair without a GPU (nvJitLink,\n"
    "as a CUDA plan does, for the figures of an H100) and checks the ptxas report: no\n"
    "setmaxnreg ignored, no serialized wgmma, no spill. Prints the kernel, its\n"
    "registers, stack and spills, and PASS or FAIL. The problem is the payload's own\n"
    "(its default dtypes, or --dtype, and its scale tensors) at M x N x K, with C\n"
    "(beta = 1) and a bias if the epilogue takes them: the first of C+bias, bias, C,\n"
    "neither that the pair accepts. --all links every pair of enabled plugins that\n"
    "carry device code. --all-tiles also links, one by one, every tile of the kernel\n"
    "table the payload's plan takes for the problem (forced through its tile and\n"
    "cluster keys). Set TILEPIPE_CACHE_DIR=off to link afresh instead of reading the\n"
    "on-disk kernel cache.";

int tp_cmd_link(int argc, char **argv) {
  link_args a = {.bias_dtype = "f32", .m = 4096, .n = 4096, .k = 4096};
  const int64_t big = TP_GEMM_MAX_DIM;
  const tp_cli_option options[] = {
      {"payload", TP_CLI_STRING, &a.payload, "P", "payload plugin", 0, 0},
      {"epilogue", TP_CLI_STRING, &a.epilogue, "E", "epilogue plugin", 0, 0},
      {"all", TP_CLI_FLAG, &a.all, NULL, "every payload x epilogue pair with device code", 0, 0},
      {"all-tiles", TP_CLI_FLAG, &a.all_tiles, NULL,
       "every tile of the kernel table the pair's plans take, not only the heuristic's pick", 0,
       0},
      {"m", TP_CLI_INT, &a.m, "M", "rows of A and D (default 4096)", 1, big},
      {"n", TP_CLI_INT, &a.n, "N", "rows of B, columns of D (default 4096)", 1, big},
      {"k", TP_CLI_INT, &a.k, "K", "the reduction length (default 4096)", 1, big},
      {"dtype", TP_CLI_STRING, &a.dtype, "SPEC",
       "a=DT,b=DT,c=DT,d=DT, or DT for A and B (as for run)", 0, 0},
      {"bias-dtype", TP_CLI_STRING, &a.bias_dtype, "DT", "dtype of the bias (default f32)", 0,
       0},
      {"registry", TP_CLI_STRING, &a.registry, "PATH", "the registry INI", 0, 0},
  };
  const tp_cli_command cmd = {"link",
                              "link (--payload P --epilogue E | --all) [--all-tiles] [options]",
                              summary, options, (int)(sizeof options / sizeof options[0]), 0};
  const char *positional[1];
  int npos;
  int rc = tp_cli_parse(&cmd, argc, argv, positional, &npos);
  if (rc != TP_EXIT_OK) return rc < 0 ? TP_EXIT_OK : rc;
  if (a.all == (a.payload != NULL || a.epilogue != NULL) ||
      (!a.all && (a.payload == NULL || a.epilogue == NULL)))
    return tp_cli_fail("link", TP_EXIT_USAGE,
                       "give --payload and --epilogue, or --all (see 'tilepipe link --help')");
  const tp_dtype bias = tp_dtype_from_name(a.bias_dtype);
  if (bias == TP_DTYPE_NONE)
    return tp_cli_fail("link", TP_EXIT_USAGE, "--bias-dtype: '%s' is not a dtype", a.bias_dtype);
#if !TP_HAVE_CUDA
  return tp_cli_fail("link", TP_EXIT_NO_GPU,
                     "tilepipe was built without the CUDA toolkit: no plugin carries device code "
                     "and nothing can be linked");
#endif
  tp_registry *reg;
  if ((rc = tp_view_open_registry("link", a.registry, &reg)) != TP_EXIT_OK) return rc;
  tp_link_target gpu = {.struct_size = sizeof gpu};
  if (tp_link_check_target(&gpu) != TP_OK) {
    tp_registry_close(reg);
    return tp_cli_fail("link", TP_EXIT_ERROR, "%s", tp_error_message());
  }
  printf("registry: %s\ntarget:   %s: %d SMs, cc %d.%d, %u bytes of shared memory per block\n",
         tp_registry_path(reg), gpu.name, gpu.sm_count, gpu.cc_major, gpu.cc_minor,
         gpu.smem_per_block);
  fflush(stdout);
  if (a.all)
    rc = link_all(&a, reg);
  else if ((rc = check_named(reg, a.payload, TP_PLUGIN_PAYLOAD)) == TP_EXIT_OK &&
           (rc = check_named(reg, a.epilogue, TP_PLUGIN_EPILOGUE)) == TP_EXIT_OK)
    rc = link_pair(&a, reg, a.payload, a.epilogue);
  tp_registry_close(reg);
  return rc;
}
