// Descriptor chains, the split ring and virtio-i2c requests, well-formed and malformed.
#include "device/virtio_i2c.h"
#include "guest_ram.h"

#include <gtest/gtest.h>

namespace ksweep::device {
namespace {

using testing::GuestRam;
constexpr uint64_t B = GuestRam::kBase;

// Records writes; answers reads with 0x10, 0x11, ...
struct RecordingDevice final : I2cDevice {
    std::vector<std::vector<uint8_t>> writes;
    int reads = 0;
    bool write(std::span<const uint8_t> d) override {
        writes.emplace_back(d.begin(), d.end());
        return true;
    }
    bool read(std::span<uint8_t> d) override {
        ++reads;
        for (size_t i = 0; i < d.size(); ++i)
            d[i] = static_cast<uint8_t>(0x10 + i);
        return true;
    }
};

struct VirtioI2cTest : ::testing::Test {
    std::vector<uint8_t> storage = std::vector<uint8_t>(0x4000);
    GuestRam ram{storage.data(), storage.size()};
    GuestMemory memory = ram.memory();
    ManualClock clock;
    I2cBus bus{clock};
    RecordingDevice device;
    std::vector<std::string> log;
    VirtioI2cDevice i2c{bus, [this](const std::string& l) { log.push_back(l); }};

    void SetUp() override { ASSERT_TRUE(bus.attach(0x2e, device)); }

    // A request in the direct descriptor table: header, optional buffer, status.
    uint16_t direct(uint16_t addr, uint32_t flags, const std::vector<uint8_t>& data, uint32_t len) {
        auto r = ram.i2c_request(GuestRam::kData, addr, flags, data, len);
        bool read = flags & kVirtioI2cFlagRead;
        uint16_t i = 0;
        ram.desc(GuestRam::kDesc, i, r.header, 8, kDescNext, i + 1);
        ++i;
        if (len) {
            ram.desc(GuestRam::kDesc, i, r.buffer, len, kDescNext | (read ? kDescWrite : 0), i + 1);
            ++i;
        }
        ram.desc(GuestRam::kDesc, i, r.status, 1, kDescWrite);
        return 0;
    }
    uint8_t status() const { return storage[GuestRam::kData + 16 + last_len]; }
    uint32_t last_len = 0;
};

TEST_F(VirtioI2cTest, WriteRequestReachesTheDevice) {
    last_len = 3;
    direct(0x2e, 0, {0x20, 0xaa, 0xbb}, 3);
    EXPECT_EQ(i2c.handle(ram.table(), 0, memory), 1u);
    EXPECT_EQ(status(), kVirtioI2cOk);
    ASSERT_EQ(device.writes.size(), 1u);
    EXPECT_EQ(device.writes[0], (std::vector<uint8_t>{0x20, 0xaa, 0xbb}));
}

TEST_F(VirtioI2cTest, ReadRequestFillsTheBuffer) {
    last_len = 4;
    direct(0x2e, kVirtioI2cFlagRead, {}, 4);
    EXPECT_EQ(i2c.handle(ram.table(), 0, memory), 5u);
    EXPECT_EQ(status(), kVirtioI2cOk);
    EXPECT_EQ(storage[GuestRam::kData + 16], 0x10);
    EXPECT_EQ(storage[GuestRam::kData + 19], 0x13);
}

TEST_F(VirtioI2cTest, ZeroLengthRequestIsAnAddressProbe) {
    last_len = 0;
    direct(0x2e, 0, {}, 0);
    EXPECT_EQ(i2c.handle(ram.table(), 0, memory), 1u);
    EXPECT_EQ(status(), kVirtioI2cOk);
    last_len = 0;
    direct(0x2f, 0, {}, 0);
    i2c.handle(ram.table(), 0, memory);
    EXPECT_EQ(status(), kVirtioI2cErr) << "nobody at 0x2f: NACK";
}

TEST_F(VirtioI2cTest, BusTraceSeesEachMessageAndItsAcknowledge) {
    std::vector<std::string> trace;
    bus.set_trace([&](const I2cMessage& m) {
        std::string line = std::string(m.read ? "R" : "W") + " " + std::to_string(m.address);
        for (uint8_t b : m.data)
            line += " " + std::to_string(b);
        trace.push_back(line + (m.acked ? "" : " NACK"));
    });
    last_len = 2;
    direct(0x2e, 0, {0x20, 0xaa}, 2);
    i2c.handle(ram.table(), 0, memory);
    last_len = 0;
    direct(0x2f, 0, {}, 0);
    i2c.handle(ram.table(), 0, memory);
    EXPECT_EQ(trace, (std::vector<std::string>{"W 46 32 170", "W 47 NACK"}));
}

TEST_F(VirtioI2cTest, IndirectTableIsFollowed) {
    auto r = ram.i2c_request(GuestRam::kData, 0x2e, kVirtioI2cFlagRead, {}, 2);
    constexpr uint64_t table = 0x3000;
    ram.desc(table, 0, r.header, 8, kDescNext, 1);
    ram.desc(table, 1, r.buffer, 2, kDescNext | kDescWrite, 2);
    ram.desc(table, 2, r.status, 1, kDescWrite);
    ram.desc(GuestRam::kDesc, 0, B + table, 48, kDescIndirect);
    last_len = 2;
    EXPECT_EQ(i2c.handle(ram.table(), 0, memory), 3u);
    EXPECT_EQ(status(), kVirtioI2cOk);
    EXPECT_EQ(storage[GuestRam::kData + 17], 0x11);
}

TEST_F(VirtioI2cTest, FailNextFailsTheRestOfTheTransfer) {
    // First message to an empty address with FAIL_NEXT, then one to the device.
    last_len = 0;
    direct(0x50, kVirtioI2cFlagFailNext, {}, 0);
    i2c.handle(ram.table(), 0, memory);
    EXPECT_EQ(status(), kVirtioI2cErr);
    direct(0x2e, kVirtioI2cFlagRead, {}, 0);
    i2c.handle(ram.table(), 0, memory);
    EXPECT_EQ(status(), kVirtioI2cErr);
    EXPECT_EQ(device.reads, 0) << "the second message never reached the bus";
    direct(0x2e, kVirtioI2cFlagRead, {}, 0);
    i2c.handle(ram.table(), 0, memory);
    EXPECT_EQ(status(), kVirtioI2cOk) << "a new transfer starts clean";
}

struct Malformed {
    const char* name;
    void (*build)(GuestRam&);
    bool has_status; // the device can still answer with an error status
};

void status_desc(GuestRam& g, uint16_t i) {
    g.desc(GuestRam::kDesc, i, B + GuestRam::kData + 100, 1, kDescWrite);
}

const Malformed kMalformed[] = {
    {"short header",
     [](GuestRam& g) {
         g.desc(GuestRam::kDesc, 0, B + GuestRam::kData, 4, kDescNext, 1);
         status_desc(g, 1);
     },
     true},
    {"no status byte", [](GuestRam& g) { g.desc(GuestRam::kDesc, 0, B + GuestRam::kData, 8, 0); },
     false},
    {"buffer outside guest memory",
     [](GuestRam& g) {
         g.desc(GuestRam::kDesc, 0, B + GuestRam::kData, 8, kDescNext, 1);
         g.desc(GuestRam::kDesc, 1, B + 0x3ff0, 0x100, kDescNext, 2);
         status_desc(g, 2);
     },
     false},
    {"address wraps around",
     [](GuestRam& g) {
         g.desc(GuestRam::kDesc, 0, ~uint64_t{0} - 2, 8, kDescNext, 1);
         status_desc(g, 1);
     },
     false},
    {"descriptor loop",
     [](GuestRam& g) {
         g.desc(GuestRam::kDesc, 0, B + GuestRam::kData, 8, kDescNext, 1);
         g.desc(GuestRam::kDesc, 1, B + GuestRam::kData, 8, kDescNext, 0);
     },
     false},
    {"next out of range",
     [](GuestRam& g) { g.desc(GuestRam::kDesc, 0, B + GuestRam::kData, 8, kDescNext, 9); }, false},
    {"readable after writable",
     [](GuestRam& g) {
         status_desc(g, 0);
         g.desc(GuestRam::kDesc, 0, B + GuestRam::kData + 100, 1, kDescWrite | kDescNext, 1);
         g.desc(GuestRam::kDesc, 1, B + GuestRam::kData, 8, 0);
     },
     false},
    {"nested indirect",
     [](GuestRam& g) {
         g.desc(0x3000, 0, B + 0x3000, 16, kDescIndirect);
         g.desc(GuestRam::kDesc, 0, B + 0x3000, 16, kDescIndirect);
     },
     false},
    {"indirect length not a multiple of 16",
     [](GuestRam& g) { g.desc(GuestRam::kDesc, 0, B + 0x3000, 20, kDescIndirect); }, false},
    {"indirect with next",
     [](GuestRam& g) { g.desc(GuestRam::kDesc, 0, B + 0x3000, 32, kDescIndirect | kDescNext, 1); },
     false},
    {"10-bit address",
     [](GuestRam& g) {
         g.put<uint16_t>(GuestRam::kData, 0x3ff);
         g.desc(GuestRam::kDesc, 0, B + GuestRam::kData, 8, kDescNext, 1);
         status_desc(g, 1);
     },
     true},
    {"unknown flags",
     [](GuestRam& g) {
         g.put<uint16_t>(GuestRam::kData, 0x2e << 1);
         g.put<uint32_t>(GuestRam::kData + 4, 0x80);
         g.desc(GuestRam::kDesc, 0, B + GuestRam::kData, 8, kDescNext, 1);
         status_desc(g, 1);
     },
     true},
    {"read with write data",
     [](GuestRam& g) {
         g.put<uint16_t>(GuestRam::kData, 0x2e << 1);
         g.put<uint32_t>(GuestRam::kData + 4, kVirtioI2cFlagRead);
         g.desc(GuestRam::kDesc, 0, B + GuestRam::kData, 12, kDescNext, 1);
         status_desc(g, 1);
     },
     true},
    {"write with a writable buffer",
     [](GuestRam& g) {
         g.put<uint16_t>(GuestRam::kData, 0x2e << 1);
         g.desc(GuestRam::kDesc, 0, B + GuestRam::kData, 8, kDescNext, 1);
         g.desc(GuestRam::kDesc, 1, B + GuestRam::kData + 50, 4, kDescWrite | kDescNext, 2);
         status_desc(g, 2);
     },
     true},
};

TEST_F(VirtioI2cTest, MalformedRequestsAreRefusedWithoutTouchingTheDevice) {
    for (const auto& m : kMalformed) {
        SCOPED_TRACE(m.name);
        std::fill(storage.begin(), storage.end(), 0);
        storage[GuestRam::kData + 100] = 0xee;
        m.build(ram);
        auto before = storage;
        uint32_t used = i2c.handle(ram.table(), 0, memory);
        EXPECT_EQ(device.writes.size(), 0u);
        EXPECT_EQ(device.reads, 0);
        if (m.has_status) {
            EXPECT_EQ(used, 1u);
            EXPECT_EQ(storage[GuestRam::kData + 100], kVirtioI2cErr);
            before[GuestRam::kData + 100] = kVirtioI2cErr;
        } else {
            EXPECT_EQ(used, 0u);
        }
        EXPECT_EQ(storage, before) << "nothing else in guest memory changed";
    }
    EXPECT_EQ(i2c.malformed(), std::size(kMalformed));
    EXPECT_EQ(log.size(), std::size(kMalformed)) << "each refusal is logged";
}

TEST(GuestMemoryTest, TranslationStaysInsideOneRegion) {
    uint8_t a[64], b[64];
    GuestMemory m({{0x1000, 64, 0x9000, a}, {0x2000, 64, 0xa000, b}});
    EXPECT_EQ(m.translate(0x1000, 64)->data(), a);
    EXPECT_EQ(m.translate(0x2010, 8)->data(), b + 16);
    EXPECT_FALSE(m.translate(0x1000, 65));
    EXPECT_FALSE(m.translate(0x1030, 0x1000)) << "spans the gap between regions";
    EXPECT_FALSE(m.translate(~uint64_t{0}, 2));
    EXPECT_EQ(m.translate_user(0xa008, 4)->data(), b + 8);
    EXPECT_FALSE(m.translate_user(0x1000, 4)) << "guest physical is not a user address";
}

TEST_F(VirtioI2cTest, SplitRingPopsPushesAndPublishesAvailEvent) {
    SplitVirtqueue q;
    ASSERT_TRUE(q.attach(memory, ram.rings(), GuestRam::kQueueSize, 0)) << q.error();
    EXPECT_FALSE(q.pop());
    ram.post(2);
    ram.post(3);
    EXPECT_EQ(q.pop(), 2);
    q.push(2, 5);
    EXPECT_EQ(q.pop(), 3);
    q.push(3, 1);
    EXPECT_FALSE(q.pop());
    EXPECT_EQ(ram.used_idx(), 2);
    EXPECT_EQ(ram.used_id(0), 2u);
    EXPECT_EQ(ram.used_len(0), 5u);
    EXPECT_EQ(ram.used_id(1), 3u);
    EXPECT_FALSE(q.arm_notifications());
    EXPECT_EQ(ram.avail_event(), 2) << "event idx: kick me when entry 2 is posted";
    ram.post(0);
    EXPECT_TRUE(q.arm_notifications()) << "a request posted meanwhile is noticed";
}

TEST_F(VirtioI2cTest, CorruptAvailRingStopsTheQueue) {
    SplitVirtqueue q;
    ASSERT_TRUE(q.attach(memory, ram.rings(), GuestRam::kQueueSize, 0));
    ram.put<uint16_t>(GuestRam::kAvail + 2, 9); // 9 entries in a queue of 4
    EXPECT_FALSE(q.pop());
    EXPECT_FALSE(q.attached());
    EXPECT_FALSE(q.error().empty());
}

TEST_F(VirtioI2cTest, RingsMustFitAndBeAligned) {
    SplitVirtqueue q;
    auto rings = ram.rings();
    rings.used += 2;
    EXPECT_FALSE(q.attach(memory, rings, GuestRam::kQueueSize, 0));
    rings = ram.rings();
    rings.desc = GuestRam::kUserBase + storage.size() - 16;
    EXPECT_FALSE(q.attach(memory, rings, GuestRam::kQueueSize, 0));
    EXPECT_FALSE(q.attach(memory, ram.rings(), 3, 0)) << "not a power of two";
}

} // namespace
} // namespace ksweep::device
