# ops, part: add-files (registering existing Parquet files as data files
# of a table, src/ops/add_files*.c) in zb_ops. The `add-files` verb
# (src/cli/verbs_add_files.c) joins the executable when the other verbs
# are there (included after cmake/cli_verbs.cmake sets them up).
if(TARGET zb_ops AND TARGET zb_catalog)
  target_sources(zb_ops PRIVATE
    ${PROJECT_SOURCE_DIR}/src/ops/add_files.c
    ${PROJECT_SOURCE_DIR}/src/ops/add_files_schema.c
    ${PROJECT_SOURCE_DIR}/src/ops/add_files_footer.c)
endif()
