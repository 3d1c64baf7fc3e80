# The dashboard of `zamboni serve` in headless Chromium (issue 19, "Done
# when"; tests/serve/dashboard_browser.mjs): a demo fleet (SQLite queue,
# serve with a token, one worker), the login, API = CLI, each page's
# numbers = the API's, no console error, nothing off loopback, a failing
# task on the fleet page within one refresh, axe-core. Screenshots under
# the build folder's dashboard-artifacts/. Skipped (77) without Debian's
# chromium (scripts/install-deps.sh). Label serve; about 45 s.
find_program(ZB_NODE NAMES node nodejs)
if(NOT ZB_NODE)
  add_test(NAME serve_dashboard COMMAND ${CMAKE_COMMAND}
    "-DMSG=node was not found at configure time; run scripts/install-deps.sh and re-run cmake"
    -P ${PROJECT_SOURCE_DIR}/tests/interop/fail.cmake)
elseif(TARGET zb_service_http)
  add_test(NAME serve_dashboard
    COMMAND ${ZB_NODE} ${CMAKE_CURRENT_LIST_DIR}/dashboard_browser.mjs
            $<TARGET_FILE:zamboni> ${CMAKE_BINARY_DIR}/dashboard-artifacts)
  set_tests_properties(serve_dashboard PROPERTIES SKIP_RETURN_CODE 77)
endif()
if(TEST serve_dashboard)
  set_tests_properties(serve_dashboard PROPERTIES LABELS serve TIMEOUT 180)
endif()
# `zamboni demo DIR --fleet`: serve and a worker in the background, the
# URL and the stop command printed and working (about 15 s; skipped when
# 127.0.0.1:8650 is taken).
add_test(NAME serve_demo_fleet
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/demo_fleet.sh $<TARGET_FILE:zamboni>)
set_tests_properties(serve_demo_fleet PROPERTIES LABELS serve TIMEOUT 120
  SKIP_RETURN_CODE 77 RUN_SERIAL TRUE)
