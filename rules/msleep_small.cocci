// SPDX-License-Identifier: GPL-2.0-only
/// msleep() of less than 20 ms is a timer-wheel sleep rounded up to whole
/// jiffies: at HZ=250 on 6.1, msleep(1) sleeps up to 12 ms and msleep(10)
/// up to 20 ms. Documentation/timers/timers-howto.rst: "SLEEPING FOR ~USECS
/// OR SMALL MSECS (10us - 20ms): Use usleep_range".
///
//# Finds msleep(C) where C is an integer literal from 1 to 19, and msleep(M)
//# where M is a #define of such a literal in the same file.  Constants from
//# headers, enums and expressions are out of reach of a per-file match; the
//# clang engine of ksweep (rules/msleep_small.yaml) resolves those.  Patch
//# mode writes usleep_range(min, min + slack) with slack = 25 % of that
//# call's sleep, at least 50 us: the yaml rule's default policy, computed per
//# call instead of once per file, written as a number instead of a named
//# {PREFIX}_DELAY_RANGE constant, and without the yaml's per-path overrides.
//
// Confidence: High
// Copyright: (C) 2026 The ksweep authors.
// URL: https://coccinelle.gitlabpages.inria.fr/website
// Comments: twin of rules/msleep_small.yaml; see ksweep scan --cross-check
// Options: --no-includes --include-headers
// Keywords: msleep, usleep_range

virtual patch
virtual context
virtual org
virtual report

@initialize:python@
@@
import re

THRESHOLD_MS = 20
SLACK_PERCENT = 25
SLACK_FLOOR_US = 50

def small_ms(text):
    """The value of an integer literal ("5", "0x5", "5UL", "(5)") if it is
    a sleep msleep() makes much longer than asked, else None."""
    # Comments in a #define body, block and line ones ("/{2}": two slashes would start
    # an SmPL comment here).
    t = re.sub(r"/\*.*?\*/|/{2}[^\n]*", " ", text, flags=re.S).strip()
    while t.startswith("(") and t.endswith(")"):
        t = t[1:-1].strip()
    m = re.fullmatch(r"(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)[uUlL]*", t)
    if not m:
        return None
    digits = m.group(1)
    if digits.lower().startswith("0x"):
        value = int(digits, 16)
    elif digits.startswith("0"):
        value = int(digits, 8)
    else:
        value = int(digits)
    return value if 0 < value < THRESHOLD_MS else None

def slack_us(ms):
    # (no floor division operator: "//" starts a comment in SmPL)
    return max(SLACK_FLOOR_US, int(ms * 1000 * SLACK_PERCENT / 100))

def literal_message(c):
    ms = small_ms(c)
    return ("WARNING: msleep(%s) < 20ms can sleep for up to 20ms; "
            "use usleep_range(%d, %d)" % (c, ms * 1000, ms * 1000 + slack_us(ms)))

def macro_message(m, c, line):
    ms = small_ms(c)
    return ("WARNING: msleep(%s) < 20ms can sleep for up to 20ms; "
            "%s is %d, #define at line %s; "
            "use usleep_range(%s * 1000, %s * 1000 + %d)"
            % (m, m, ms, line, m, m, slack_us(ms)))

// A same-file #define of a small literal.  Its value is checked here, once,
// so that the rules below only need the name.

@small_define@
identifier M;
expression C : script:python() { small_ms(C) is not None };
position pd;
@@

#define M@pd C

//----------------------------------------------------------
//  For patch mode
//----------------------------------------------------------

@literal_site depends on patch@
constant C : script:python() { small_ms(C) is not None };
position p;
@@

msleep@p(C)

@script:python literal_range depends on patch@
c << literal_site.C;
lo;
hi;
@@

ms = small_ms(c)
coccinelle.lo = cocci.make_expr(str(ms * 1000))
coccinelle.hi = cocci.make_expr(str(ms * 1000 + slack_us(ms)))

@depends on patch@
constant literal_site.C;
position literal_site.p;
expression literal_range.lo, literal_range.hi;
@@

- msleep@p(C)
+ usleep_range(lo, hi)

@script:python macro_slack depends on patch@
c << small_define.C;
slack;
@@

coccinelle.slack = cocci.make_expr(str(slack_us(small_ms(c))))

@depends on patch@
identifier small_define.M;
expression macro_slack.slack;
@@

- msleep(M)
+ usleep_range(M * 1000, M * 1000 + slack)

//----------------------------------------------------------
//  For context mode
//----------------------------------------------------------

@depends on context@
constant C : script:python() { small_ms(C) is not None };
@@

* msleep(C)

@depends on context@
identifier small_define.M;
@@

* msleep(M)

//----------------------------------------------------------
//  For org and report mode
//----------------------------------------------------------

@literal_r depends on org || report@
constant C : script:python() { small_ms(C) is not None };
position p;
@@

msleep@p(C)

@macro_r depends on org || report@
identifier small_define.M;
position p;
@@

msleep@p(M)

@script:python depends on org@
p << literal_r.p;
c << literal_r.C;
@@

coccilib.org.print_todo(p[0], literal_message(c))

@script:python depends on org@
p << macro_r.p;
m << small_define.M;
c << small_define.C;
pd << small_define.pd;
@@

coccilib.org.print_todo(p[0], macro_message(m, c, pd[0].line))

@script:python depends on report@
p << literal_r.p;
c << literal_r.C;
@@

coccilib.report.print_report(p[0], literal_message(c))

@script:python depends on report@
p << macro_r.p;
m << small_define.M;
c << small_define.C;
pd << small_define.pd;
@@

coccilib.report.print_report(p[0], macro_message(m, c, pd[0].line))
