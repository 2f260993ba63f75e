// ksweep_op: the guest-side operation of a device file (devices/*.yaml), timed. The client is
// found by its address on the virtio I2C adapter (/sys/bus/i2c/devices/<nr>-00<addr>), the
// target by a glob below its directory, so the host never needs the guest's numbering.
//
//   ksweep_op wait ADDR TARGET SECONDS      wait until TARGET exists (the driver bound)
//   ksweep_op read ADDR TARGET N            read the sysfs attribute N times
//   ksweep_op rtc-set-time ADDR TARGET TIME N
//                                           RTC_SET_TIME TIME (YYYY-MM-DDTHH:MM:SS) N times
//                                           through /dev/<TARGET's name>, each read back
//   ksweep_op stats ADDR                    read the back end's counters at ADDR (0x7f)
//
// Each operation is timed alone with CLOCK_MONOTONIC (an open, read, close of the attribute;
// the ioctl), one record per line, parsed by src/guest/guest_output.cpp:
//   ksweep-op: begin n=<N> op=<read|rtc-set-time>
//   ksweep-op: op i=<i> ns=<ns> rc=0x<errno> value=<what it read, or ->
//   ksweep-op: end ok=<count> failed=<count>
//   ksweep-op: stats <name>=<value> ...
//   ksweep-op: error <what>
// A value is one word: whitespace inside it becomes '_'. Exit status 0 when every operation
// succeeded. Built static (gcc -static): the initramfs has no C library.
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <linux/i2c-dev.h>
#include <linux/i2c.h>
#include <linux/rtc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum { kValueSize = 128, kStatsSize = 1024 };

static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

// The virtio I2C adapter's number: the only adapter this guest has, but looked up by name.
static int virtio_adapter(void) {
    DIR* dir = opendir("/sys/bus/i2c/devices");
    if (!dir)
        return -1;
    int found = -1;
    for (struct dirent* e; (e = readdir(dir)) && found < 0;) {
        int nr;
        char path[300], name[64] = "";
        if (sscanf(e->d_name, "i2c-%d", &nr) != 1)
            continue;
        snprintf(path, sizeof path, "/sys/bus/i2c/devices/%s/name", e->d_name);
        FILE* f = fopen(path, "r");
        if (!f)
            continue;
        if (fgets(name, sizeof name, f) && strcasestr(name, "virtio"))
            found = nr;
        fclose(f);
    }
    closedir(dir);
    return found;
}

// The first path matching /sys/bus/i2c/devices/<nr>-00<addr>/<target>, into `out`.
static int resolve(unsigned addr, const char* target, char* out, size_t size) {
    int nr = virtio_adapter();
    if (nr < 0)
        return -1;
    char pattern[512];
    snprintf(pattern, sizeof pattern, "/sys/bus/i2c/devices/%d-%04x/%s", nr, addr, target);
    glob_t g;
    int rc = glob(pattern, 0, NULL, &g);
    if (rc == 0 && g.gl_pathc > 0)
        snprintf(out, size, "%s", g.gl_pathv[0]);
    globfree(&g);
    return rc == 0 ? 0 : -1;
}

// The text as one word: trailing newline dropped, other whitespace made '_'.
static void one_word(char* text) {
    size_t n = strlen(text);
    while (n && (text[n - 1] == '\n' || text[n - 1] == ' '))
        text[--n] = 0;
    for (char* c = text; *c; ++c)
        if (*c == ' ' || *c == '\t' || *c == '\n' || (unsigned char)*c < 0x20)
            *c = '_';
    if (!*text)
        strcpy(text, "-");
}

static int do_wait(unsigned addr, const char* target, int seconds) {
    char path[512];
    for (int tries = seconds * 10; tries >= 0; --tries) {
        if (resolve(addr, target, path, sizeof path) == 0)
            return 0;
        usleep(100000);
    }
    printf("ksweep-op: error %s did not appear below the client 0x%02x within %d s (probe "
           "failed?)\n",
           target, addr, seconds);
    return 1;
}

static int do_read(unsigned addr, const char* target, unsigned n) {
    char path[512];
    if (resolve(addr, target, path, sizeof path) != 0) {
        printf("ksweep-op: error no %s below the client 0x%02x\n", target, addr);
        return 1;
    }
    printf("ksweep-op: begin n=%u op=read\n", n);
    unsigned failed = 0;
    for (unsigned i = 0; i < n; ++i) {
        char value[kValueSize] = "";
        int64_t start = now_ns();
        int fd = open(path, O_RDONLY);
        ssize_t got = fd < 0 ? -1 : read(fd, value, sizeof value - 1);
        int err = got < 0 ? errno : 0;
        if (fd >= 0)
            close(fd);
        int64_t ns = now_ns() - start;
        value[got > 0 ? got : 0] = 0;
        one_word(value);
        failed += err != 0;
        printf("ksweep-op: op i=%u ns=%lld rc=0x%x value=%s\n", i, (long long)ns, err, value);
        fflush(stdout);
    }
    printf("ksweep-op: end ok=%u failed=%u\n", n - failed, failed);
    return failed != 0;
}

static int do_rtc_set_time(unsigned addr, const char* target, const char* when, unsigned n) {
    char path[512], dev[300];
    struct rtc_time tm;
    memset(&tm, 0, sizeof tm);
    if (sscanf(when, "%4d-%2d-%2dT%2d:%2d:%2d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
               &tm.tm_min, &tm.tm_sec) != 6) {
        printf("ksweep-op: error '%s' is not YYYY-MM-DDTHH:MM:SS\n", when);
        return 2;
    }
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    if (resolve(addr, target, path, sizeof path) != 0) {
        printf("ksweep-op: error no %s below the client 0x%02x\n", target, addr);
        return 1;
    }
    snprintf(dev, sizeof dev, "/dev/%s", strrchr(path, '/') + 1);
    int fd = open(dev, O_RDONLY);
    if (fd < 0) {
        printf("ksweep-op: error cannot open %s: %s\n", dev, strerror(errno));
        return 1;
    }
    printf("ksweep-op: begin n=%u op=rtc-set-time\n", n);
    unsigned failed = 0;
    for (unsigned i = 0; i < n; ++i) {
        int64_t start = now_ns();
        int err = ioctl(fd, RTC_SET_TIME, &tm) < 0 ? errno : 0;
        int64_t ns = now_ns() - start;
        struct rtc_time back;
        memset(&back, 0, sizeof back);
        char value[kValueSize] = "-";
        if (err == 0 && ioctl(fd, RTC_RD_TIME, &back) == 0)
            snprintf(value, sizeof value, "%04d-%02d-%02dT%02d:%02d:%02d", back.tm_year + 1900,
                     back.tm_mon + 1, back.tm_mday, back.tm_hour, back.tm_min, back.tm_sec);
        failed += err != 0;
        printf("ksweep-op: op i=%u ns=%lld rc=0x%x value=%s\n", i, (long long)ns, err, value);
        fflush(stdout);
    }
    close(fd);
    printf("ksweep-op: end ok=%u failed=%u\n", n - failed, failed);
    return failed != 0;
}

static int do_stats(unsigned addr) {
    int nr = virtio_adapter();
    char dev[32];
    snprintf(dev, sizeof dev, "/dev/i2c-%d", nr);
    int fd = nr < 0 ? -1 : open(dev, O_RDWR);
    if (fd < 0) {
        printf("ksweep-op: error cannot open the virtio adapter's %s: %s\n", dev,
               strerror(errno));
        return 1;
    }
    uint8_t rewind = 0;
    static char text[kStatsSize + 1];
    struct i2c_msg msgs[2] = {{.addr = (uint16_t)addr, .flags = 0, .len = 1, .buf = &rewind},
                              {.addr = (uint16_t)addr,
                               .flags = I2C_M_RD,
                               .len = kStatsSize,
                               .buf = (uint8_t*)text}};
    struct i2c_rdwr_ioctl_data transfer = {msgs, 2};
    int rc = ioctl(fd, I2C_RDWR, &transfer);
    close(fd);
    if (rc < 0) {
        printf("ksweep-op: error reading the counters at 0x%02x: %s\n", addr, strerror(errno));
        return 1;
    }
    text[kStatsSize] = 0;
    char* end = strchr(text, '\n');
    if (end)
        *end = 0;
    printf("ksweep-op: stats %s\n", text);
    return 0;
}

static unsigned number(const char* text) {
    return (unsigned)strtoul(text, NULL, 0);
}

int main(int argc, char** argv) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc == 5 && !strcmp(argv[1], "wait"))
        return do_wait(number(argv[2]), argv[3], (int)number(argv[4]));
    if (argc == 5 && !strcmp(argv[1], "read"))
        return do_read(number(argv[2]), argv[3], number(argv[4]));
    if (argc == 6 && !strcmp(argv[1], "rtc-set-time"))
        return do_rtc_set_time(number(argv[2]), argv[3], argv[4], number(argv[5]));
    if (argc == 3 && !strcmp(argv[1], "stats"))
        return do_stats(number(argv[2]));
    fprintf(stderr, "usage: ksweep_op wait ADDR TARGET SECONDS | read ADDR TARGET N |\n"
                    "       rtc-set-time ADDR TARGET TIME N | stats ADDR\n");
    return 2;
}
