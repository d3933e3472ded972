# Browser test of `plan --format html`: renders the report in headless
# Chromium and fails on a page that is blank or broken.
#
#   cmake -DSCALEOUT=bin -DCHROMIUM=bin -DROOT=src -DOUTDIR=dir
#         (-DWORKLOAD=file.yaml | -DREPORT=page.html) [-DEXPECT=word,word]
#         [-DCOMMAND=plan|estimate|simulate] [-DCHARTS=id,id]
#         -P check_report.cmake
#
# 1. Writes the report with `scaleout COMMAND WORKLOAD --format html -o`
#    (COMMAND: plan unless given; or takes REPORT as it is). CHARTS: the
#    chart ids the page must draw (default: the plan report's four).
# 2. Loads a copy with a checking script appended (the report itself has no
#    script) and `--dump-dom`s it: every chart (an <svg> with the ids below)
#    must be laid out at least 100 x 50 px and hold at least 5 drawn shapes,
#    the verdict header must be there, and no script error may occur. The
#    script writes "RENDER-OK" or "RENDER-FAIL <what>" into the DOM.
# 3. Chromium's console (--enable-logging=stderr --v=0) must show no
#    CONSOLE or "Uncaught" line.
# 4. Takes a 1000 x 2400 screenshot (OUTDIR/report.png): a PNG at least 5 times
#    the size of the screenshot of an empty page and at least 40 kB.
#
# With EXPECT (a negative test), the check must fail, and each word of EXPECT
# must appear among the failures; the test then passes.
set(charts chart-memory chart-time chart-cost chart-step)
if(DEFINED CHARTS)
  string(REPLACE "," ";" charts "${CHARTS}")
endif()
if(NOT DEFINED COMMAND)
  set(COMMAND plan)
endif()
file(REMOVE_RECURSE "${OUTDIR}")
file(MAKE_DIRECTORY "${OUTDIR}")
set(failures "")

if(DEFINED WORKLOAD)
  execute_process(
    COMMAND "${SCALEOUT}" ${COMMAND} "${WORKLOAD}" --format html -o "${OUTDIR}/report.html"
    WORKING_DIRECTORY "${ROOT}"
    RESULT_VARIABLE code
    OUTPUT_VARIABLE out
    ERROR_VARIABLE err)
  if(NOT code EQUAL 0)
    message(FATAL_ERROR "scaleout ${COMMAND} --format html failed (${code}): ${out}${err}")
  endif()
  if(NOT out STREQUAL "")
    list(APPEND failures "stdout-not-empty")
  endif()
  set(REPORT "${OUTDIR}/report.html")
endif()

file(READ "${REPORT}" page)
string(REPLACE ";" "','" chart_list "${charts}")
set(checker "<script>
(function () {
  var bad = [];
  ['${chart_list}'].forEach(function (id) {
    var el = document.getElementById(id);
    if (!el || el.tagName.toLowerCase() !== 'svg') { bad.push(id + ':missing'); return; }
    var box = el.getBoundingClientRect();
    if (box.width < 100 || box.height < 50) bad.push(id + ':not-laid-out');
    if (el.querySelectorAll('rect,path,circle,line,polyline').length < 5) bad.push(id + ':no-shapes');
  });
  if (!document.getElementById('verdict')) bad.push('verdict:missing');
  var out = document.createElement('pre');
  out.id = 'render-check';
  out.textContent = bad.length ? 'RENDER-FAIL ' + bad.join(' ') : 'RENDER-OK';
  document.body.appendChild(out);
})();
</script>
")
string(FIND "${page}" "</body>" at REVERSE)
if(at LESS 0)
  string(APPEND page "${checker}")
else()
  string(SUBSTRING "${page}" 0 ${at} head)
  string(SUBSTRING "${page}" ${at} -1 tail)
  set(page "${head}${checker}${tail}")
endif()
file(WRITE "${OUTDIR}/check.html" "${page}")
file(WRITE "${OUTDIR}/blank.html" "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>blank</title></head><body></body></html>\n")

set(browser "${CHROMIUM}" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage
            --no-first-run --disable-extensions --hide-scrollbars
            --user-data-dir=${OUTDIR}/profile)
execute_process(
  COMMAND ${browser} --enable-logging=stderr --v=0 --dump-dom "file://${OUTDIR}/check.html"
  RESULT_VARIABLE code
  OUTPUT_VARIABLE dom
  ERROR_VARIABLE log
  TIMEOUT 90)
file(WRITE "${OUTDIR}/dom.html" "${dom}")
file(WRITE "${OUTDIR}/console.log" "${log}")
if(NOT code EQUAL 0)
  list(APPEND failures "chromium-exit-${code}")
endif()
string(REGEX MATCH "<pre id=\"render-check\">RENDER-(OK|FAIL)[^<]*" verdict "${dom}")
string(REGEX REPLACE "^<pre id=\"render-check\">" "" verdict "${verdict}")
if(NOT verdict STREQUAL "RENDER-OK")
  if(verdict STREQUAL "")
    set(verdict "RENDER-FAIL check-script-did-not-run")
  endif()
  string(REPLACE "RENDER-FAIL " "" what "${verdict}")
  string(REPLACE " " ";" what "${what}")
  list(APPEND failures ${what})
endif()
string(REGEX MATCHALL "[^\n]*(CONSOLE|Uncaught)[^\n]*" console "${log}")
if(console)
  list(APPEND failures "console-error")
  message(STATUS "console: ${console}")
endif()

foreach(shot report blank)
  set(src "${OUTDIR}/check.html")
  if(shot STREQUAL "blank")
    set(src "${OUTDIR}/blank.html")
  elseif(DEFINED WORKLOAD)
    set(src "${OUTDIR}/report.html")
  endif()
  execute_process(
    COMMAND ${browser} --window-size=1000,2400 --screenshot=${OUTDIR}/${shot}.png "file://${src}"
    RESULT_VARIABLE code
    OUTPUT_QUIET ERROR_QUIET
    TIMEOUT 90)
  if(NOT code EQUAL 0 OR NOT EXISTS "${OUTDIR}/${shot}.png")
    list(APPEND failures "screenshot-${shot}-failed")
  endif()
endforeach()
if(EXISTS "${OUTDIR}/report.png" AND EXISTS "${OUTDIR}/blank.png")
  file(READ "${OUTDIR}/report.png" magic LIMIT 8 HEX)
  file(SIZE "${OUTDIR}/report.png" shot_bytes)
  file(SIZE "${OUTDIR}/blank.png" blank_bytes)
  math(EXPR floor "5 * ${blank_bytes}")
  message(STATUS "screenshot ${OUTDIR}/report.png: ${shot_bytes} bytes (empty page: ${blank_bytes})")
  if(NOT magic STREQUAL "89504e470d0a1a0a")
    list(APPEND failures "screenshot-not-png")
  elseif(shot_bytes LESS floor OR shot_bytes LESS 40000)
    list(APPEND failures "screenshot-blank")
  endif()
endif()

if(DEFINED EXPECT)
  if(NOT failures)
    message(FATAL_ERROR "expected the check to fail (${EXPECT}), but the page passed")
  endif()
  string(REPLACE "," ";" expected "${EXPECT}")
  foreach(word IN LISTS expected)
    string(FIND "${failures}" "${word}" found)
    if(found LESS 0)
      message(FATAL_ERROR "expected a failure naming '${word}'; failures: ${failures}")
    endif()
  endforeach()
  message(STATUS "failed as expected: ${failures}")
elseif(failures)
  message(FATAL_ERROR "the report does not render cleanly: ${failures} (see ${OUTDIR})")
else()
  message(STATUS "rendered: ${charts} present and drawn, no console errors")
endif()
