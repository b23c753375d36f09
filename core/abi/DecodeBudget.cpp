#include "DecodeBudget.h"

#include <algorithm>

namespace forkscope::abi {

DecodeLimit DecodeLimit::forData(qsizetype dataSize)
{
    DecodeLimit l;
    l.dataSize = std::max<qsizetype>(dataSize, 0);
    // The ratio only matters below kMaxBytesPerLog / kInflationRatio (1 KiB of data):
    // compare before multiplying so no size can overflow.
    if (l.dataSize >= kMaxBytesPerLog / kInflationRatio) {
        l.bytes = kMaxBytesPerLog;
        l.rule = Rule::PerLog;
    } else if (l.dataSize * kInflationRatio > kFloorBytes) {
        l.bytes = l.dataSize * kInflationRatio;
        l.rule = Rule::Ratio;
    } else {
        l.bytes = kFloorBytes;
        l.rule = Rule::Floor;
    }
    return l;
}

QString DecodeLimit::exceeded() const
{
    switch (rule) {
    case Rule::Ratio:
        return QStringLiteral("decoded size exceeds %1x the log's %2 bytes of data (offsets "
                              "reused?); kept raw")
            .arg(kInflationRatio)
            .arg(dataSize);
    case Rule::Floor:
        return QStringLiteral("decoded size exceeds %1 bytes, the floor for a log of %2 bytes of "
                              "data (offsets reused?); kept raw")
            .arg(bytes)
            .arg(dataSize);
    case Rule::PerLog:
        break;
    }
    return QStringLiteral("decoded size exceeds %1 bytes, the bound per log (the log has %2 "
                          "bytes of data; offsets reused?); kept raw")
        .arg(bytes)
        .arg(dataSize);
}

} // namespace forkscope::abi
