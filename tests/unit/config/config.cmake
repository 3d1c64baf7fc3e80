# Tests of the configuration layer (issue 10): zamboni.yml, .env and the
# settings resolution (src/cli, zb_config), the memory budget and threads
# of a process (cli/config/resources.c: the headroom rule, the sources),
# and table-config.json v2
# (src/ops/table_config*.c: linked from zb_ops_table_config, the same
# sources zb_ops holds, so that the test does not wait on the rest of
# ops). One binary, label unit.
add_executable(test_config unit/config/cfg_main.c unit/config/cfg_dotenv.c
  unit/config/cfg_profile.c unit/config/cfg_settings.c
  unit/config/cfg_table_config.c unit/config/cfg_resources.c)
target_include_directories(test_config PRIVATE
  ${CMAKE_CURRENT_SOURCE_DIR}/unit/config)
target_link_libraries(test_config PRIVATE zbtest zb_config
  zb_ops_table_config zb_util)
add_test(NAME test_config COMMAND test_config)
set_tests_properties(test_config PROPERTIES LABELS unit TIMEOUT 300)

# env.sample lists every ZAMBONI_* variable the sources name (seed 003).
add_test(NAME lint_env_sample
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/env_sample_check.sh
          ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/env.sample)
set_tests_properties(lint_env_sample PROPERTIES LABELS lint)
