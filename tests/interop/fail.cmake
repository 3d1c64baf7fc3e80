# cmake -DMSG=... -P fail.cmake: a test that fails with MSG (interop.cmake).
message(FATAL_ERROR "${MSG}")
