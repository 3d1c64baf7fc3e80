# Configuration (issue 10). Two parts, one per layer:
#   zb_config (cli layer): zamboni.yml (profile.c, libyaml), .env
#     (dotenv.c) and the resolution of every setting with its origin,
#     including the catalog connection (settings.c).
#   zb_ops gains table-config.json version 2 (src/ops/table_config*.c,
#     jansson): parse, validate, merge, effective block, summary.
pkg_check_modules(YAML REQUIRED IMPORTED_TARGET yaml-0.1)
if(NOT TARGET PkgConfig::JANSSON)
  pkg_check_modules(JANSSON REQUIRED IMPORTED_TARGET jansson)
endif()

add_library(zb_config STATIC src/cli/profile.c src/cli/dotenv.c
  src/cli/settings.c)
# settings.h fills a zb_catalog_config (catalog/catalog.h, which includes
# jansson.h); only the struct is used, so the catalog library is not
# linked here.
target_link_libraries(zb_config PUBLIC zb_util PkgConfig::JANSSON
  PRIVATE PkgConfig::YAML)

# table-config.json belongs to ops (maintenance reads it per table).
if(TARGET zb_ops)
  target_sources(zb_ops PRIVATE src/ops/table_config.c
    src/ops/table_config_block.c src/ops/table_config_merge.c)
  target_link_libraries(zb_ops PUBLIC PkgConfig::JANSSON)
endif()

# The table-config sources alone, for the fuzz target (which compiles
# them again under libFuzzer and must not pull the rest of zb_ops).
add_library(zb_ops_table_config STATIC EXCLUDE_FROM_ALL
  src/ops/table_config.c src/ops/table_config_block.c
  src/ops/table_config_merge.c)
target_link_libraries(zb_ops_table_config PUBLIC zb_util PkgConfig::JANSSON)
