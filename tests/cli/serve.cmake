# `zamboni serve` on SQLite with the demo warehouse (cli_serve.sh): start-up
# checks, the endpoints with a token, /metrics through an npm Prometheus
# text parser, SIGTERM.
if(TARGET zb_service_http AND TARGET zb_service_planner)
  add_test(NAME test_cli_serve
    COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/cli_serve.sh
      $<TARGET_FILE:zamboni> ${PROJECT_SOURCE_DIR})
  set_tests_properties(test_cli_serve PROPERTIES LABELS cli TIMEOUT 120)
endif()
