# CTest registration of the gates (label `gate`) and of the command-line contract (label `unit`).
# Included from the top-level CMakeLists.txt; the unit tests of the library are in lib/tests.
# Every test gets its measured time as COST and a timeout with headroom (ccb_test_budget).

# Gates, two tiers (guide §8). gate.CASE runs the quick tier (`make test`, plain `ctest`):
# the smallest studies that still test each claim. gate-full.CASE runs the full tier, every study
# at the papers' settings; it belongs to the CTest configuration Full, so only `ctest -C Full`
# (`make test-full`) runs it. A FAIL fails the test; a documented expected failure (XFAIL) does
# not. Measured seconds, the slowest seen: quick (make test idle, and make test-loaded: two
# CPU-bound processes beside the suite, on a fresh clone of the 2-core machine, 2026-11-28, issue
# 43; every test of this file and lib/tests likewise) and full (make test-full, 2026-11-25 and
# -26: two tests at a time, the full tier's clutter with its ensembles, the error-control studies
# with both estimators). The timeout is 10x that and at least 120 s (ccb_test_budget).
set(CCB_GATES conveyor  4.3    3.36
              sphere    4.0    1.34
              rod       39.7   15.2
              box       15.8   127
              clutter   111.7  594
              coin      84.5   202
              gripper   15.7   319
              grasp     44.0   50.8
              spatula   74.6   119
              push      1.3    1.2
              aniso     0.5    0.9
              pancake   1.9    28.7
              hand      4.6    90)
while(CCB_GATES)
  list(POP_FRONT CCB_GATES case quick full)
  add_test(NAME gate.${case}
           COMMAND ccb_cli gate ${case} --tier quick --out ${CMAKE_BINARY_DIR}/gate-results/quick
                   --jobs 2 --junit ${CMAKE_BINARY_DIR}/junit/gate.${case}.xml)
  list(APPEND CCB_GATE_TESTS gate.${case})
  list(APPEND CCB_GATE_CASES ${case})
  set_tests_properties(gate.${case} PROPERTIES LABELS gate
                       ENVIRONMENT CCB_SOURCE_DIR=${PROJECT_SOURCE_DIR})
  ccb_test_budget(gate.${case} ${quick})
  add_test(NAME gate-full.${case} CONFIGURATIONS Full
           COMMAND ccb_cli gate ${case} --tier full --out ${CMAKE_BINARY_DIR}/gate-results/full
                   --jobs 2)
  set_tests_properties(gate-full.${case} PROPERTIES LABELS "gate;full"
                       ENVIRONMENT CCB_SOURCE_DIR=${PROJECT_SOURCE_DIR})
  ccb_test_budget(gate-full.${case} ${full})
endwhile()

# The JUnit XML that make test writes per case (build/junit/gate.CASE.xml, `ccb gate --junit`):
# valid against the schema CI systems read (CI/junit.xsd) and, parsed back, one test case per
# row of the case's gates.csv with the same failures and skips (CI/junit_check.sh). After the
# gates, which write both.
add_test(NAME unit.junit COMMAND bash ${PROJECT_SOURCE_DIR}/CI/junit_check.sh
                                 ${CMAKE_BINARY_DIR}/junit ${CMAKE_BINARY_DIR}/gate-results/quick
                                 ${CCB_GATE_CASES})
set_tests_properties(unit.junit PROPERTIES LABELS unit DEPENDS "${CCB_GATE_TESTS}")
ccb_test_budget(unit.junit 7.1)

# A variant is one file plus one registration: a toy approximation in a test file, registered
# through the public API, is picked up by ccb list, compare and the standard studies.
add_executable(ccb_toy ${PROJECT_SOURCE_DIR}/cases/tests/toy_variant.c)
target_link_libraries(ccb_toy PRIVATE ccb_cli_lib)
add_test(NAME unit.toy_variant COMMAND bash ${PROJECT_SOURCE_DIR}/CI/toy_variant_test.sh
                                       $<TARGET_FILE:ccb_toy> $<TARGET_FILE:ccb_cli>)
set_tests_properties(unit.toy_variant PROPERTIES LABELS unit
                     ENVIRONMENT CCB_SOURCE_DIR=${PROJECT_SOURCE_DIR})
ccb_test_budget(unit.toy_variant 33.0)

# A declaration's results as values (study/result.c): templates and tables rendered by the engine
add_executable(test_results ${PROJECT_SOURCE_DIR}/study/tests/results.c)
target_link_libraries(test_results PRIVATE ccb_cases)
add_test(NAME unit.results COMMAND test_results)
set_tests_properties(unit.results PROPERTIES LABELS unit
                     ENVIRONMENT CCB_SOURCE_DIR=${PROJECT_SOURCE_DIR})
ccb_test_budget(unit.results 0.07)

# The command line's library calls and its one way of reporting (cli/tests/cli.c; architecture §7)
add_executable(test_cli ${PROJECT_SOURCE_DIR}/cli/tests/cli.c)
target_link_libraries(test_cli PRIVATE ccb_cli_lib)
add_test(NAME unit.cli COMMAND test_cli)
set_tests_properties(unit.cli PROPERTIES LABELS unit
                     ENVIRONMENT CCB_SOURCE_DIR=${PROJECT_SOURCE_DIR})
ccb_test_budget(unit.cli 0.05)

# The table across engines (study/suite.c, suite_engines_write; docs/cases.md §16) and its reader's
# refusals
add_executable(test_engines ${PROJECT_SOURCE_DIR}/cases/tests/engines.c)
target_link_libraries(test_engines PRIVATE ccb_cases)
target_include_directories(test_engines PRIVATE ${PROJECT_SOURCE_DIR}/lib/tests)
add_test(NAME unit.engines COMMAND test_engines)
set_tests_properties(unit.engines PROPERTIES LABELS unit)
ccb_test_budget(unit.engines 0.1)

# The variant table and the cases' declarations of their variants (study/variant.c, case.h)
add_executable(test_variants ${PROJECT_SOURCE_DIR}/cases/tests/variants.c)
target_link_libraries(test_variants PRIVATE ccb_cases)
target_include_directories(test_variants PRIVATE ${PROJECT_SOURCE_DIR}/lib/tests)
add_test(NAME unit.variants COMMAND test_variants)
set_tests_properties(unit.variants PROPERTIES LABELS unit
                     ENVIRONMENT CCB_SOURCE_DIR=${PROJECT_SOURCE_DIR})
ccb_test_budget(unit.variants 0.05)

# The hand case's model against the model file it transcribes, by an independent computation of
# the link poses at rest and under each joint (cases/hand.c, docs/cases.md §19.1)
add_executable(test_hand_model ${PROJECT_SOURCE_DIR}/cases/tests/hand_model.c)
target_link_libraries(test_hand_model PRIVATE ccb_cases)
target_include_directories(test_hand_model PRIVATE ${PROJECT_SOURCE_DIR}/lib/tests)
add_test(NAME unit.hand_model COMMAND test_hand_model)
set_tests_properties(unit.hand_model PROPERTIES LABELS unit)
ccb_test_budget(unit.hand_model 0.05)

# The install: a relocated prefix, consumers by find_package and pkg-config, the installed ccb.
# Not in the sanitizer build, whose instrumented libccb.a needs the sanitizer runtime in every
# consumer: packaging is tested once, in the ordinary build of `make test`.
if(NOT CCB_SANITIZE)
  add_test(NAME install.consumer COMMAND bash ${PROJECT_SOURCE_DIR}/CI/install_test.sh
                                          ${PROJECT_BINARY_DIR})
  set_tests_properties(install.consumer PROPERTIES LABELS unit)
  ccb_test_budget(install.consumer 19.7)
endif()

# Allocation failure at every point of a short run of every case and solver (issue 13, class 7)
add_executable(test_alloc_sweep ${PROJECT_SOURCE_DIR}/cases/tests/alloc_sweep.c)
target_link_libraries(test_alloc_sweep PRIVATE ccb_cases)
add_test(NAME unit.alloc_sweep COMMAND test_alloc_sweep)
set_tests_properties(unit.alloc_sweep PROPERTIES LABELS unit
                     ENVIRONMENT "CCB_SOURCE_DIR=${PROJECT_SOURCE_DIR}")
ccb_test_budget(unit.alloc_sweep 8.0)

# The FCLIB export read back with libfclib (formulation-convex §16); skipped (exit 77) in a build
# without libfclib-dev.
add_executable(test_fclib_roundtrip ${PROJECT_SOURCE_DIR}/cases/tests/fclib_roundtrip.c)
target_link_libraries(test_fclib_roundtrip PRIVATE ccb_cases)
add_test(NAME fclib.roundtrip COMMAND test_fclib_roundtrip)
set_tests_properties(fclib.roundtrip PROPERTIES LABELS unit SKIP_RETURN_CODE 77)
ccb_test_budget(fclib.roundtrip 6)

add_test(NAME cli.contract COMMAND bash ${PROJECT_SOURCE_DIR}/CI/cli_test.sh $<TARGET_FILE:ccb_cli>)
set_tests_properties(cli.contract PROPERTIES LABELS unit
                     ENVIRONMENT CCB_SOURCE_DIR=${PROJECT_SOURCE_DIR})
ccb_test_budget(cli.contract 86.4)

# Unit tests outside lib/: the analytic references (reference/test_reference.c: the Coulomb event
# times of the conveyor, the sphere, the rod's Painleve analysis, the box, the coin) and the
# analysis helpers (analysis/test_analysis.c: error norms, order fits, transitions).
function(ccb_unit_test name source library seconds)
  add_executable(test_${name} ${source})
  target_link_libraries(test_${name} PRIVATE ${library})
  target_include_directories(test_${name} PRIVATE ${PROJECT_SOURCE_DIR}/lib/tests)
  add_test(NAME unit.${name} COMMAND test_${name})
  set_tests_properties(unit.${name} PROPERTIES LABELS unit)
  ccb_test_budget(unit.${name} ${seconds})
endfunction()
ccb_unit_test(reference ${PROJECT_SOURCE_DIR}/reference/test_reference.c ccb_reference 34.1)
ccb_unit_test(analysis ${PROJECT_SOURCE_DIR}/analysis/test_analysis.c ccb_analysis 0.01)

# Every section citation in the repository resolves to a heading of docs/ (docs/README.md), and
# the check itself fails on each kind of bad citation.
add_test(NAME docs.citations COMMAND bash ${PROJECT_SOURCE_DIR}/CI/docs_test.sh ${PROJECT_SOURCE_DIR})
set_tests_properties(docs.citations PROPERTIES LABELS unit)
ccb_test_budget(docs.citations 1.7)
# docs.layers: the include graph of lib/ against the layer table of docs/architecture.md §1, and
# of the suite's folders against the module table of §2 (CI/check_layers.pl: no cycle between
# study/ and cases/, a case reaches the engine through results.h and runs.h only); the check
# fails on each kind of bad include (CI/layers_test.sh)
add_test(NAME docs.layers COMMAND bash ${PROJECT_SOURCE_DIR}/CI/layers_test.sh ${PROJECT_SOURCE_DIR})
set_tests_properties(docs.layers PROPERTIES LABELS unit)
ccb_test_budget(docs.layers 0.08)
# docs.errors: one way for study/, cases/ and cli/ to report (docs/architecture.md §7): no file
# writes to stderr but study_log, cli_error and the named progress displays, no exit() in the
# engine or the cases; the check fails on a planted stderr write and a planted exit()
# (CI/check_errors.sh)
add_test(NAME docs.errors COMMAND bash ${PROJECT_SOURCE_DIR}/CI/check_errors.sh ${PROJECT_SOURCE_DIR})
set_tests_properties(docs.errors PROPERTIES LABELS unit)
ccb_test_budget(docs.errors 0.12)

# A short run of every case and solver family against the data stored in reference/golden/:
# byte identity of trajectory.csv and steps.csv, or — on another CPU's libm — a deviation within
# the run's stated round-off tolerance (reference/golden/runs.txt). CI/golden_test.sh --update
# rewrites the stored data after a deliberate change of the physics.
add_test(NAME golden.digests COMMAND bash ${PROJECT_SOURCE_DIR}/CI/golden_test.sh
                                          $<TARGET_FILE:ccb_cli> ${PROJECT_SOURCE_DIR})
set_tests_properties(golden.digests PROPERTIES LABELS unit
                     ENVIRONMENT CCB_SOURCE_DIR=${PROJECT_SOURCE_DIR})
ccb_test_budget(golden.digests 2.8)

# Studies outside the process (guide §11): --emit-manifest, the runs in
# separate processes, --from; the analysis must equal the in-process study.
add_test(NAME cli.manifest COMMAND bash ${PROJECT_SOURCE_DIR}/CI/manifest_test.sh
                                        $<TARGET_FILE:ccb_cli>)
set_tests_properties(cli.manifest PROPERTIES LABELS unit
                     ENVIRONMENT CCB_SOURCE_DIR=${PROJECT_SOURCE_DIR})
ccb_test_budget(cli.manifest 69.3)

# Results from elsewhere cannot lie or harm (issue 25): --from refuses each broken or hostile run
# directory (exit 2, naming the file and line, nothing created); a path with quotes is data.
# The regression view (issue 30): ccb diff on identical and perturbed trees, a baseline saved and
# rerun, round-off spreads, verdicts first, refused input, the JUnit check failing on a bad XML
add_test(NAME cli.diff COMMAND bash ${PROJECT_SOURCE_DIR}/CI/diff_test.sh $<TARGET_FILE:ccb_cli>)
set_tests_properties(cli.diff PROPERTIES LABELS unit ENVIRONMENT CCB_SOURCE_DIR=${PROJECT_SOURCE_DIR})
ccb_test_budget(cli.diff 9.3)

# The defects of issue 44, one section each (H1 ...): paths are never gnuplot or shell syntax,
# ccb replaces only regular files, baselines replace only baselines and compare before they are
# replaced, the diff has no width limit and is symmetric, spreads only from the run's own
# --sensitivity, --from checks every solver option
add_test(NAME cli.hostile COMMAND bash ${PROJECT_SOURCE_DIR}/CI/hostile_test.sh $<TARGET_FILE:ccb_cli>)
set_tests_properties(cli.hostile PROPERTIES LABELS unit ENVIRONMENT CCB_SOURCE_DIR=${PROJECT_SOURCE_DIR})
ccb_test_budget(cli.hostile 12.5)

# ccb diff cannot miss (issue 44, part 2): random changes above and below the threshold in real trees
# and files of 10,000 columns, every one above reported and none below, in both argument orders
add_test(NAME cli.diff_property COMMAND python3 ${PROJECT_SOURCE_DIR}/CI/diff_property.py
                                        $<TARGET_FILE:ccb_cli>)
set_tests_properties(cli.diff_property PROPERTIES LABELS unit
                     ENVIRONMENT CCB_SOURCE_DIR=${PROJECT_SOURCE_DIR})
ccb_test_budget(cli.diff_property 8.8)

# The CI templates (CI/templates/*.yml): YAML, `make test` as their build-and-test command, their
# ccb commands run as written on the push case
add_test(NAME unit.templates COMMAND bash ${PROJECT_SOURCE_DIR}/CI/templates_test.sh
                                     $<TARGET_FILE:ccb_cli>)
set_tests_properties(unit.templates PROPERTIES LABELS unit
                     ENVIRONMENT CCB_SOURCE_DIR=${PROJECT_SOURCE_DIR})
ccb_test_budget(unit.templates 14.9)

add_test(NAME cli.from COMMAND bash ${PROJECT_SOURCE_DIR}/CI/from_test.sh $<TARGET_FILE:ccb_cli>)
set_tests_properties(cli.from PROPERTIES LABELS unit ENVIRONMENT CCB_SOURCE_DIR=${PROJECT_SOURCE_DIR})
ccb_test_budget(cli.from 13.7)

# A full disk never leaves a half-written result (issue 25): a run, a run at its commit, figures,
# a manifest and --from's copies meet ENOSPC on a 2 MB tmpfs. Needs root to mount it: skipped
# (exit 77) where it cannot.
add_test(NAME cli.fulldisk COMMAND bash ${PROJECT_SOURCE_DIR}/CI/fulldisk_test.sh
                                   $<TARGET_FILE:ccb_cli>)
set_tests_properties(cli.fulldisk PROPERTIES LABELS unit SKIP_RETURN_CODE 77
                     ENVIRONMENT CCB_SOURCE_DIR=${PROJECT_SOURCE_DIR})
ccb_test_budget(cli.fulldisk 2.8)

# Every case, study and gate id named in docs/, README.md and the gate files exists (ccb list,
# reference/*.json), and the check fails on each kind of unknown id.
add_test(NAME docs.ids COMMAND bash ${PROJECT_SOURCE_DIR}/CI/ids_test.sh ${PROJECT_SOURCE_DIR}
                                    $<TARGET_FILE:ccb_cli>)
set_tests_properties(docs.ids PROPERTIES LABELS unit)
ccb_test_budget(docs.ids 0.65)

# plugin.pgs: the extension model end to end with the example plugin plugins/pgs (loading and its
# refusals, PGS against Newton on the same convex problem, one descriptor per option in info /
# meta.json / the command line, a study's manifest, compare), and a plugin of each kind (solver
# pgs, ODE method heun, approximation toy) in run, compare, gate and bench; CI/plugin_test.sh
add_test(NAME plugin.pgs COMMAND bash ${PROJECT_SOURCE_DIR}/CI/plugin_test.sh $<TARGET_FILE:ccb_cli>
                                 ${PROJECT_BINARY_DIR})
set_tests_properties(plugin.pgs PROPERTIES LABELS unit
                     ENVIRONMENT "CCB_SOURCE_DIR=${PROJECT_SOURCE_DIR}")
ccb_test_budget(plugin.pgs 2.4)

# install.exports: the ccb program exports every name libccb's public headers declare, for
# plugins (CI/exports_test.sh; skipped, exit 77, without nm)
add_test(NAME install.exports COMMAND bash ${PROJECT_SOURCE_DIR}/CI/exports_test.sh
                                      $<TARGET_FILE:ccb_cli> ${PROJECT_SOURCE_DIR})
set_tests_properties(install.exports PROPERTIES LABELS unit SKIP_RETURN_CODE 77)
ccb_test_budget(install.exports 1.0)

# docs.tour: the README's five-minute tour runs as printed (every command exits 0) and leaves the
# files the README says it leaves; CI/tour_test.sh
add_test(NAME docs.tour COMMAND bash ${PROJECT_SOURCE_DIR}/CI/tour_test.sh ${PROJECT_BINARY_DIR}
                                ${PROJECT_SOURCE_DIR})
set_tests_properties(docs.tour PROPERTIES LABELS unit)
ccb_test_budget(docs.tour 3.3)

# style.format: every C file as .clang-format formats it (clang-format 14, Debian 12; skipped with
# another version or none); CI/format_test.sh
add_test(NAME style.format COMMAND bash ${PROJECT_SOURCE_DIR}/CI/format_test.sh ${PROJECT_SOURCE_DIR})
set_tests_properties(style.format PROPERTIES LABELS unit SKIP_RETURN_CODE 77)
ccb_test_budget(style.format 4.6)

# unit.verdict: a failing make test says why in its last lines (CI/run_ctest.sh): each failed test,
# its time against its guard when it timed out, and the command that reruns it alone
add_test(NAME unit.verdict COMMAND bash ${PROJECT_SOURCE_DIR}/CI/run_ctest_test.sh)
set_tests_properties(unit.verdict PROPERTIES LABELS unit)
ccb_test_budget(unit.verdict 3.5)

# docs.testtable: the table of test times and guards (docs/testing.md §6) is CTest's own COST and TIMEOUT
# (CI/test_table.py). Not in the sanitizer build, whose guards are scaled and which has no
# install.consumer.
if(NOT CCB_SANITIZE)
  add_test(NAME docs.testtable COMMAND python3 ${PROJECT_SOURCE_DIR}/CI/test_table.py
                                       ${PROJECT_BINARY_DIR} ${PROJECT_SOURCE_DIR}/docs/testing.md)
  set_tests_properties(docs.testtable PROPERTIES LABELS unit)
  ccb_test_budget(docs.testtable 1.0)
endif()

# docs.tiercounts: the user guide's per-case counts of gates by tier are the gate files' own
# (CI/tier_counts.py)
add_test(NAME docs.tiercounts COMMAND python3 ${PROJECT_SOURCE_DIR}/CI/tier_counts.py
                                      ${PROJECT_SOURCE_DIR})
set_tests_properties(docs.tiercounts PROPERTIES LABELS unit)
ccb_test_budget(docs.tiercounts 1.0)

# docs.tables: the tables derived from the code agree with it (CI/doc_tables.py): cases.md §9
# lists every study with a paper figure, reference/sensitivity/quick.md has a row, a verdict,
# for every gate of the quick tier and the user guide (docs/guide.md §8) states its count
add_test(NAME docs.tables COMMAND python3 ${PROJECT_SOURCE_DIR}/CI/doc_tables.py
                                  $<TARGET_FILE:ccb_cli> ${PROJECT_SOURCE_DIR})
set_tests_properties(docs.tables PROPERTIES LABELS unit)
ccb_test_budget(docs.tables 1.0)
