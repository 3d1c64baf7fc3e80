# The worker fleet end to end (issue 17, "Done when"), label fleet: real
# `zamboni worker` processes and signals, the queue and the SQL catalog in
# one database. The PostgreSQL cases need ZB_TEST_PG_URL (scripts/pg-test.sh
# run ctest ...) and are skipped (exit 77) without it:
#   fleet_once_sqlite, fleet_once_pg   8 workers, >= 100 tasks on 40 tables:
#                                      each done once, rows unchanged
#   fleet_signals_pg                   SIGKILL (lost, one class up) and
#                                      SIGSTOP past the lease (fenced)
#   fleet_drain_pg                     SIGTERM, --drain-timeout 30s and 0
#   fleet_limits_pg                    oversize task, idle exit, lifetime,
#                                      cgroup figures from a test tree
find_program(ZB_NODE NAMES node nodejs)
set(_zb_fleet_cases once:sqlite once:pg signals:pg drain:pg limits:pg)
foreach(_c ${_zb_fleet_cases})
  string(REPLACE ":" ";" _p ${_c})
  list(GET _p 0 _script)
  list(GET _p 1 _backend)
  set(_name fleet_${_script}_${_backend})
  if(NOT ZB_NODE)
    add_test(NAME ${_name} COMMAND ${CMAKE_COMMAND}
      "-DMSG=node was not found at configure time; run scripts/install-deps.sh and re-run cmake"
      -P ${PROJECT_SOURCE_DIR}/tests/interop/fail.cmake)
  else()
    add_test(NAME ${_name}
      COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/fleet_${_script}.sh
              $<TARGET_FILE:zamboni> $<TARGET_FILE:zb-table-gen> ${ZB_NODE}
              ${_backend})
    set_tests_properties(${_name} PROPERTIES SKIP_RETURN_CODE 77)
  endif()
  set_tests_properties(${_name} PROPERTIES LABELS fleet TIMEOUT 300)
endforeach()
