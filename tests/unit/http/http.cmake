# Tests of service/http/ (serve's HTTP side): the Prometheus text, the
# bearer check, /demand's JSON, and a real server on loopback read with
# libcurl, on SQLite always and on PostgreSQL when ZB_TEST_PG_URL names a
# server (the queue suites' queue_env.c gives each case its database).
if(TARGET zb_service_http)
  add_executable(test_http unit/http/http_main.c unit/http/test_http.c
    unit/http/test_http_dashboard.c
    unit/service/queue_env.c)
  target_include_directories(test_http PRIVATE
    ${CMAKE_CURRENT_SOURCE_DIR}/unit/service)
  target_link_libraries(test_http PRIVATE zbtest zb_service_http
    zb_service_queue zb_catalog zb_io zb_util PkgConfig::CURL
    PkgConfig::JANSSON Threads::Threads)
  add_test(NAME test_http COMMAND test_http)
  set_tests_properties(test_http PROPERTIES LABELS unit TIMEOUT 120)
endif()
