# `zamboni doctor` and `zamboni table-config from-catalog`
# (src/cli/verbs/verb_doctor.c, src/cli/verbs/verb_table_config_generate.c), through the
# executable:
#   test_cli_doctor  help and usage; fixture tables usable (counts from the
#                    fixture README, no byte changed); missing table,
#                    corrupt metadata, missing manifest, encryption keys,
#                    unknown transform, budget over the memory limit,
#                    unusable temporary folder, bad profile, no catalog:
#                    usable False, exit 1, the reason naming the problem;
#                    the demo warehouse: doctor with and without TABLE,
#                    from-catalog output accepted by table-config
#                    validate (label unit)
add_test(NAME test_cli_doctor
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/cli_doctor.sh
          $<TARGET_FILE:zamboni> ${PROJECT_SOURCE_DIR}/../shared/fixtures)
set_tests_properties(test_cli_doctor PROPERTIES LABELS unit TIMEOUT 300)
