# The progress line (src/cli/verbs/progress.c):
#   test_cli_progress      the printer itself: not installed off a
#                          terminal, the line's text, width, rate, clear
#   test_cli_progress_sh   the verbs through the executable: nothing on
#                          a non-terminal; under script(1) the line is
#                          drawn and erased
add_executable(test_cli_progress ${CMAKE_CURRENT_LIST_DIR}/progress_test.c
  ${PROJECT_SOURCE_DIR}/src/cli/verbs/progress.c)
target_include_directories(test_cli_progress PRIVATE ${PROJECT_SOURCE_DIR}/src)
target_link_libraries(test_cli_progress PRIVATE zbtest zb_util)
add_test(NAME test_cli_progress COMMAND test_cli_progress)
set_tests_properties(test_cli_progress PROPERTIES LABELS unit TIMEOUT 60)
add_test(NAME test_cli_progress_sh
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/cli_progress.sh
          $<TARGET_FILE:zamboni> ${PROJECT_SOURCE_DIR}/../shared/fixtures)
set_tests_properties(test_cli_progress_sh PROPERTIES LABELS unit
  TIMEOUT 300)
