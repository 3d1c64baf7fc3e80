# cli, part: the doctor verb (src/cli/verbs_doctor.c): checks the
# configuration, catalog, temporary folder, memory limit, codecs and
# optionally one table. Needs the other verbs (cmake/cli_verbs.cmake) in
# the executable; included after it.
if(TARGET zamboni AND TARGET zb_plan AND TARGET zb_parquet_codec)
  get_target_property(_zb_dr_cli zamboni SOURCES)
  string(REGEX MATCH "(^|;|/)verbs_args\\.c(;|$)" _zb_dr_verbs "${_zb_dr_cli}")
  if(_zb_dr_verbs)
    target_sources(zamboni PRIVATE ${PROJECT_SOURCE_DIR}/src/cli/verbs_doctor.c)
    target_link_libraries(zamboni PRIVATE zb_plan zb_parquet_codec)
    set_property(SOURCE ${PROJECT_SOURCE_DIR}/src/cli/commands.c
      APPEND PROPERTY COMPILE_DEFINITIONS ZB_CLI_HAVE_DOCTOR=1)
  endif()
endif()
