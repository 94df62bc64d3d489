# CTest registration of the gates (label `gate`) and of the command-line contract (label `unit`).
# Included from the top-level CMakeLists.txt; the unit tests of the library are in lib/tests.

# Gate tier of `make test`: the quick studies of each case and every gate of reference/CASE.json.
# A FAIL fails the test; a documented expected failure (XFAIL) is printed but does not.
foreach(case conveyor sphere rod box clutter coin)
  add_test(NAME gate.${case}
           COMMAND ccb_cli gate ${case} --out ${CMAKE_BINARY_DIR}/gate-results --jobs 2)
  set_tests_properties(gate.${case} PROPERTIES LABELS gate TIMEOUT 600
                       ENVIRONMENT CCB_SOURCE_DIR=${PROJECT_SOURCE_DIR})
endforeach()
# Start the longest gates first (CTest orders by COST when it has no timing history, e.g. in a
# fresh clone): the clutter gate alone takes ~5 min, the others together about as long.
set_tests_properties(gate.clutter PROPERTIES COST 300)
set_tests_properties(gate.coin PROPERTIES COST 120)
set_tests_properties(gate.box PROPERTIES COST 50)

add_test(NAME cli.contract COMMAND bash ${PROJECT_SOURCE_DIR}/CI/cli_test.sh $<TARGET_FILE:ccb_cli>)
set_tests_properties(cli.contract PROPERTIES LABELS unit TIMEOUT 600
                     ENVIRONMENT CCB_SOURCE_DIR=${PROJECT_SOURCE_DIR})

# Reference data of the conveyor: the Coulomb event times of cases.md §3.2.
add_executable(test_reference ${PROJECT_SOURCE_DIR}/reference/test_reference.c)
target_link_libraries(test_reference PRIVATE ccb_reference)
target_include_directories(test_reference PRIVATE ${PROJECT_SOURCE_DIR}/lib/tests)
add_test(NAME unit.reference COMMAND test_reference)
set_tests_properties(unit.reference PROPERTIES LABELS unit TIMEOUT 60)

# Analysis helpers (error norms, order fits, transitions).
add_executable(test_analysis ${PROJECT_SOURCE_DIR}/analysis/test_analysis.c)
target_link_libraries(test_analysis PRIVATE ccb_analysis)
target_include_directories(test_analysis PRIVATE ${PROJECT_SOURCE_DIR}/lib/tests)
add_test(NAME unit.analysis COMMAND test_analysis)
set_tests_properties(unit.analysis PROPERTIES LABELS unit TIMEOUT 60)
