#pragma once

#include <QByteArray>
#include <QList>

namespace forkscope::foreign {

// One value of a foreign row as its store gave it, before it is read as a block number, an
// address or an amount (ForeignValue.h).
struct ForeignCell
{
    enum class Type { Null, Integer, Real, Text, Blob };
    Type type = Type::Null;
    qint64 integer = 0;
    QByteArray bytes; // Text: UTF-8; Blob: the bytes; Real: its text
};

using ForeignCells = QList<ForeignCell>;

} // namespace forkscope::foreign
