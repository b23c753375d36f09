#pragma once

// What the fuzz targets share: the input as Qt bytes, an invariant check that counts as a
// finding, and a quiet Qt. Each target defines LLVMFuzzerTestOneInput; libFuzzer supplies
// main().

#include "OneLine.h"

#include <QByteArray>
#include <QString>
#include <QtGlobal>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>

namespace forkscope::fuzz {

inline QByteArray bytes(const std::uint8_t* data, std::size_t size)
{
    return QByteArray(reinterpret_cast<const char*>(data), qsizetype(size));
}

// Inputs of two parts, a first line (a spec, an ABI, a block as JSON) and what follows it.
// Without a newline the first line is empty and the rest is the whole input.
struct TwoParts
{
    QByteArray firstLine;
    QByteArray rest;
    bool split = false;
};
inline TwoParts splitFirstLine(const QByteArray& input)
{
    const qsizetype newline = input.indexOf('\n');
    if (newline < 0)
        return {QByteArray(), input, false};
    return {input.first(newline), input.mid(newline + 1), true};
}

// A property the code under test promised and broke: printed, then abort(), which libFuzzer
// reports as a crash and saves the input for.
[[noreturn]] inline void broken(const char* file, int line, const char* what, const QString& detail)
{
    std::fprintf(stderr, "%s:%d: fuzz invariant broken: %s\n  %s\n", file, line, what,
                 detail.toUtf8().constData());
    std::abort();
}

// A file's own names may run long, but never break the line: isOneLine(m, kUnbounded).
constexpr qsizetype kUnbounded = std::numeric_limits<qsizetype>::max();
using test::isOneLine;

// qDebug/qWarning from Qt's parsers are not findings and would flood the run; a qFatal (a
// failed Q_ASSERT in this Debug build) still aborts.
inline void quietQt()
{
    qInstallMessageHandler([](QtMsgType type, const QMessageLogContext&, const QString& msg) {
        if (type == QtFatalMsg) {
            std::fprintf(stderr, "qFatal: %s\n", msg.toUtf8().constData());
            std::abort();
        }
    });
}

} // namespace forkscope::fuzz

#define FUZZ_CHECK(cond, detail)                                                                   \
    do {                                                                                           \
        if (!(cond))                                                                               \
            ::forkscope::fuzz::broken(__FILE__, __LINE__, #cond, (detail));                        \
    } while (false)

// Once per process, before the first input.
#define FUZZ_INIT                                                                                  \
    extern "C" int LLVMFuzzerInitialize(int*, char***)                                             \
    {                                                                                              \
        ::forkscope::fuzz::quietQt();                                                              \
        return 0;                                                                                  \
    }
