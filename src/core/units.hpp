// Internal unit system: bytes, seconds, FLOP/s, bytes/s, watts, USD.
// Conversions from the units people write (GB, GiB, Gb/s, TFLOPS) happen
// once, at the input edge, with these constants.
#pragma once

namespace scaleout::units {

inline constexpr double kGB = 1e9;                        // decimal gigabyte, bytes
inline constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;  // binary gibibyte, bytes
inline constexpr double kMiB = 1024.0 * 1024.0;           // binary mebibyte, bytes
inline constexpr double kTFLOPS = 1e12;                   // FLOP/s
inline constexpr double kGbps = 1e9 / 8.0;                // gigabit/s in bytes/s
inline constexpr double kGBps = 1e9;                      // gigabyte/s in bytes/s
inline constexpr double kTB = 1e12;                       // decimal terabyte, bytes

}  // namespace scaleout::units
