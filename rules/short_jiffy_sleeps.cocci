// SPDX-License-Identifier: GPL-2.0-only
/// Short sleeps given in jiffies: msleep_interruptible(ms) and
/// schedule_timeout*(msecs_to_jiffies(ms) or usecs_to_jiffies(us)) below
/// 20 ms round up to whole jiffies and then to the timer wheel's
/// granularity: at HZ=250, schedule_timeout_uninterruptible(
/// usecs_to_jiffies(100)) sleeps up to 8 ms.
///
//# Finds the calls whose value is an integer literal, or a #define of one in
//# the same file, below 20 ms.  Constants from headers, enums and
//# expressions are out of reach of a per-file match; the clang engine of
//# ksweep (rules/short_jiffy_sleeps.yaml) resolves those.  No patch mode:
//# whether a rewrite keeps the meaning depends on whether the time left is
//# read and on the task state, which the yaml rule's forms decide per call.
//
// Confidence: High
// Copyright: (C) 2026 The ksweep authors.
// URL: https://coccinelle.gitlabpages.inria.fr/website
// Comments: twin of rules/short_jiffy_sleeps.yaml; see ksweep scan --cross-check
// Options: --no-includes --include-headers
// Keywords: msleep_interruptible, schedule_timeout, msecs_to_jiffies, usecs_to_jiffies

virtual context
virtual org
virtual report

@initialize:python@
@@
import re

THRESHOLD_MS = 20

def value_of(text):
    """The value of an integer literal ("5", "0x5", "5UL", "(5)"), or None."""
    # Comments in a #define body ("/{2}": two slashes would start an SmPL comment here).
    t = re.sub(r"/\*.*?\*/|/{2}[^\n]*", " ", text, flags=re.S).strip()
    while t.startswith("(") and t.endswith(")"):
        t = t[1:-1].strip()
    m = re.fullmatch(r"(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)[uUlL]*", t)
    if not m:
        return None
    digits = m.group(1)
    if digits.lower().startswith("0x"):
        return int(digits, 16)
    if digits.startswith("0"):
        return int(digits, 8)
    return int(digits)

def small(text, per_ms):
    """The value if value / per_ms is a sleep of 0 to 20 ms (both excluded), else None."""
    v = value_of(text)
    return v if v is not None and 0 < v < THRESHOLD_MS * per_ms else None

def message(call, name=None, value=None, line=None):
    where = "" if name is None else "%s is %d, #define at line %s; " % (name, value, line)
    return ("WARNING: %s < 20ms sleeps whole jiffies; %s"
            "use usleep_range() where the time left is not read" % (call, where))

@ms_define@
identifier M;
expression C : script:python() { small(C, 1) is not None };
position pd;
@@

#define M@pd C

@us_define@
identifier M;
expression C : script:python() { small(C, 1000) is not None };
position pd;
@@

#define M@pd C

//----------------------------------------------------------
//  For context mode
//----------------------------------------------------------

@depends on context@
constant C : script:python() { small(C, 1) is not None };
identifier st = {schedule_timeout, schedule_timeout_uninterruptible,
                 schedule_timeout_interruptible, schedule_timeout_killable,
                 schedule_timeout_idle};
@@

(
* msleep_interruptible(C)
|
* st(msecs_to_jiffies(C))
)

//----------------------------------------------------------
//  For org and report mode
//----------------------------------------------------------

@ms_literal depends on org || report@
constant C : script:python() { small(C, 1) is not None };
position p;
@@

msleep_interruptible@p(C)

@ms_macro depends on org || report@
identifier ms_define.M;
position p;
@@

msleep_interruptible@p(M)

@st_ms_literal depends on org || report@
identifier st = {schedule_timeout, schedule_timeout_uninterruptible,
                 schedule_timeout_interruptible, schedule_timeout_killable,
                 schedule_timeout_idle};
constant C : script:python() { small(C, 1) is not None };
position p;
@@

st@p(msecs_to_jiffies(C))

@st_ms_macro depends on org || report@
identifier st = {schedule_timeout, schedule_timeout_uninterruptible,
                 schedule_timeout_interruptible, schedule_timeout_killable,
                 schedule_timeout_idle};
identifier ms_define.M;
position p;
@@

st@p(msecs_to_jiffies(M))

@st_us_literal depends on org || report@
identifier st = {schedule_timeout, schedule_timeout_uninterruptible,
                 schedule_timeout_interruptible, schedule_timeout_killable,
                 schedule_timeout_idle};
constant C : script:python() { small(C, 1000) is not None };
position p;
@@

st@p(usecs_to_jiffies(C))

@st_us_macro depends on org || report@
identifier st = {schedule_timeout, schedule_timeout_uninterruptible,
                 schedule_timeout_interruptible, schedule_timeout_killable,
                 schedule_timeout_idle};
identifier us_define.M;
position p;
@@

st@p(usecs_to_jiffies(M))

@script:python depends on report@
p << ms_literal.p;
c << ms_literal.C;
@@

coccilib.report.print_report(p[0], message("msleep_interruptible(%s)" % c))

@script:python depends on report@
p << ms_macro.p;
m << ms_define.M;
c << ms_define.C;
pd << ms_define.pd;
@@

coccilib.report.print_report(p[0], message("msleep_interruptible(%s)" % m, m, value_of(c), pd[0].line))

@script:python depends on report@
p << st_ms_literal.p;
st << st_ms_literal.st;
c << st_ms_literal.C;
@@

coccilib.report.print_report(p[0], message("%s(msecs_to_jiffies(%s))" % (st, c)))

@script:python depends on report@
p << st_ms_macro.p;
st << st_ms_macro.st;
m << ms_define.M;
c << ms_define.C;
pd << ms_define.pd;
@@

coccilib.report.print_report(p[0], message("%s(msecs_to_jiffies(%s))" % (st, m), m, value_of(c), pd[0].line))

@script:python depends on report@
p << st_us_literal.p;
st << st_us_literal.st;
c << st_us_literal.C;
@@

coccilib.report.print_report(p[0], message("%s(usecs_to_jiffies(%s))" % (st, c)))

@script:python depends on report@
p << st_us_macro.p;
st << st_us_macro.st;
m << us_define.M;
c << us_define.C;
pd << us_define.pd;
@@

coccilib.report.print_report(p[0], message("%s(usecs_to_jiffies(%s))" % (st, m), m, value_of(c), pd[0].line))

@script:python depends on org@
p << ms_literal.p;
c << ms_literal.C;
@@

coccilib.org.print_todo(p[0], message("msleep_interruptible(%s)" % c))

@script:python depends on org@
p << st_ms_literal.p;
st << st_ms_literal.st;
c << st_ms_literal.C;
@@

coccilib.org.print_todo(p[0], message("%s(msecs_to_jiffies(%s))" % (st, c)))

@script:python depends on org@
p << st_us_literal.p;
st << st_us_literal.st;
c << st_us_literal.C;
@@

coccilib.org.print_todo(p[0], message("%s(usecs_to_jiffies(%s))" % (st, c)))
