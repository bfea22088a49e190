# Fails unless two directory trees hold the same files with the same bytes: none missing, none
# extra, none different. Run as a script:
#   cmake -DEXPECTED=<dir> -DACTUAL=<dir> [-DSUBDIRS=a,b] [-DGENERATOR=<program>] -P compare_dirs.cmake
# SUBDIRS (comma-separated) limits the comparison to those subdirectories, e.g. to leave out the
# sources that sit next to checked-in generated files. With GENERATOR, ACTUAL is emptied first and
# filled by running `GENERATOR ACTUAL`, so files left over from an earlier run cannot hide a case
# the generator stopped writing.

cmake_minimum_required(VERSION 3.25)  # script mode starts with old policies (IN_LIST needs CMP0057)

foreach(_var IN ITEMS EXPECTED ACTUAL)
  if(NOT DEFINED ${_var})
    message(FATAL_ERROR "compare_dirs.cmake: -D${_var}=<dir> is required")
  endif()
endforeach()

# Globbing RELATIVE to a relative path finds nothing, so anchor both at the working directory.
get_filename_component(EXPECTED "${EXPECTED}" ABSOLUTE)
get_filename_component(ACTUAL "${ACTUAL}" ABSOLUTE)

if(DEFINED GENERATOR)
  file(REMOVE_RECURSE "${ACTUAL}")
  file(MAKE_DIRECTORY "${ACTUAL}")
  execute_process(COMMAND "${GENERATOR}" "${ACTUAL}" RESULT_VARIABLE _rc)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "${GENERATOR} ${ACTUAL} failed (${_rc})")
  endif()
endif()

if(NOT IS_DIRECTORY "${EXPECTED}" OR NOT IS_DIRECTORY "${ACTUAL}")
  message(FATAL_ERROR "compare_dirs.cmake: ${EXPECTED} and ${ACTUAL} must both be directories")
endif()

set(_globs "*")
if(DEFINED SUBDIRS)
  string(REPLACE "," ";" _globs "${SUBDIRS}")
  list(TRANSFORM _globs APPEND "/*")
endif()
set(_expected)
set(_actual)
foreach(_glob IN LISTS _globs)
  file(GLOB_RECURSE _found RELATIVE "${EXPECTED}" LIST_DIRECTORIES false "${EXPECTED}/${_glob}")
  list(APPEND _expected ${_found})
  file(GLOB_RECURSE _found RELATIVE "${ACTUAL}" LIST_DIRECTORIES false "${ACTUAL}/${_glob}")
  list(APPEND _actual ${_found})
endforeach()

set(_problems)
foreach(_file IN LISTS _expected)
  if(NOT _file IN_LIST _actual)
    list(APPEND _problems "missing from ${ACTUAL}: ${_file}")
  endif()
endforeach()
foreach(_file IN LISTS _actual)
  if(NOT _file IN_LIST _expected)
    list(APPEND _problems "extra in ${ACTUAL}: ${_file}")
  else()
    execute_process(COMMAND "${CMAKE_COMMAND}" -E compare_files "${EXPECTED}/${_file}" "${ACTUAL}/${_file}"
                    RESULT_VARIABLE _rc OUTPUT_QUIET ERROR_QUIET)
    if(NOT _rc EQUAL 0)
      list(APPEND _problems "differs: ${_file}")
    endif()
  endif()
endforeach()

if(NOT _expected)
  list(APPEND _problems "no files in ${EXPECTED} to compare")
endif()
if(_problems)
  list(LENGTH _problems _count)
  list(JOIN _problems "\n  " _text)
  message(FATAL_ERROR "${EXPECTED} and ${ACTUAL} differ (${_count}):\n  ${_text}")
endif()
list(LENGTH _expected _count)
message(STATUS "${EXPECTED} and ${ACTUAL} match (${_count} files)")
