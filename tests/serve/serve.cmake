# `zamboni serve` end to end (issue 18, "Done when"), label serve: real
# serve and worker processes, the SQL catalog and the queue in one
# PostgreSQL database. They need ZB_TEST_PG_URL (scripts/pg-test.sh run
# ctest ...) and are skipped (exit 77) without it:
#   serve_plan      3 warehouses of known need, 2 workers: exactly the
#                   needed operations, rows unchanged, live tasks bounded
#   serve_cap       the cap at 20: displacement of excluded tasks only,
#                   the added/evicted/refused counters
#   serve_health    /health 503 while its own server is stopped, 200 when
#                   back, /livez 200; the bearer token
#   serve_demand    /metrics through an npm parser; /demand as tasks are
#                   added, taken, backed off, finished
#   serve_leader    two replicas, one leader; SIGKILL: the other plans
#   serve_restart   serve killed and restarted mid-run loses nothing
find_program(ZB_NODE NAMES node nodejs)
foreach(_s plan cap health demand leader restart)
  set(_name serve_${_s})
  if(NOT ZB_NODE)
    add_test(NAME ${_name} COMMAND ${CMAKE_COMMAND}
      "-DMSG=node was not found at configure time; run scripts/install-deps.sh and re-run cmake"
      -P ${PROJECT_SOURCE_DIR}/tests/interop/fail.cmake)
  else()
    add_test(NAME ${_name}
      COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/serve_${_s}.sh
              $<TARGET_FILE:zamboni> $<TARGET_FILE:zb-table-gen> ${ZB_NODE})
    set_tests_properties(${_name} PROPERTIES SKIP_RETURN_CODE 77)
  endif()
  set_tests_properties(${_name} PROPERTIES LABELS serve TIMEOUT 180)
endforeach()
