#pragma once

#include <QString>
#include <QtGlobal>

namespace forkscope::abi {

// How much decoded JSON one log may produce. A log's data is attacker-chosen: offsets may
// point many times at the same region, so a 96 KB log can claim gigabytes of decoded
// output. Canonical encodings render to about 2.5 bytes per data byte (a uint256 word is
// at most 78 digits), so the bounds below never touch a legitimate log except a very
// large one, and a log past them is kept raw (its topics and data stay stored).
struct DecodeLimit
{
    // Inflation ratio, as ethers v6 enforces it ("compressed ABI data exceeds inflation
    // ratio of 1024").
    static constexpr qsizetype kInflationRatio = 1024;
    // So a log of a few words still decodes whatever its ABI's key names cost.
    static constexpr qsizetype kFloorBytes = 64 * 1024;
    // Per log, whatever its size: the raw data stays in `logs.data`, so refusing to render
    // more loses nothing; 1 MiB of args is >= ~350 KB of canonical data (>= 2.8 M gas of
    // log data alone), and it bounds what a fetch thread holds per log to a few MiB.
    static constexpr qsizetype kMaxBytesPerLog = 1024 * 1024;

    enum class Rule { Floor, Ratio, PerLog };

    qsizetype bytes = 0;
    Rule rule = Rule::Floor;
    qsizetype dataSize = 0;

    // min(kMaxBytesPerLog, max(kFloorBytes, kInflationRatio x dataSize)).
    static DecodeLimit forData(qsizetype dataSize);
    // "decoded size exceeds 1024x the log's 96000 bytes of data (offsets reused?); kept raw"
    QString exceeded() const;
};

// Counts the bytes of compact JSON a decoding renders, charged before each piece is built,
// so a decoding that would pass the limit stops there instead of building it first.
class DecodeBudget
{
public:
    explicit DecodeBudget(qsizetype dataSize) : m_limit(DecodeLimit::forData(dataSize)) {}

    // Whether `bytes` more would still fit (a look-ahead, nothing is charged).
    bool hasRoom(qsizetype bytes) const { return bytes >= 0 && bytes <= m_limit.bytes - m_used; }
    // Charges `bytes`; false (and nothing charged) when they would pass the limit.
    bool charge(qsizetype bytes)
    {
        if (!hasRoom(bytes))
            return false;
        m_used += bytes;
        return true;
    }
    qsizetype used() const { return m_used; }
    const DecodeLimit& limit() const { return m_limit; }

private:
    DecodeLimit m_limit;
    qsizetype m_used = 0;
};

} // namespace forkscope::abi
