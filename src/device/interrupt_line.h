// A chip's interrupt output as its model drives it. The cr50 pulses its INT_AP_L line low after
// each I2C write it has processed; the line reaches the guest's driver as an interrupt
// (ivshmem_doorbell.h), or, on a board without the wire, nowhere (the model holds no line).
#pragma once

namespace ksweep::device {

class InterruptLine {
  public:
    virtual ~InterruptLine() = default;
    // The line goes low and back high: one falling and one rising edge.
    virtual void pulse_low() = 0;
};

} // namespace ksweep::device
