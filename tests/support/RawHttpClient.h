#pragma once

// A raw HTTP/1.1 client for tests that must see exactly what a server sent: status, headers
// and body as bytes, many connections at once, no client library smoothing anything over.
#include <QByteArray>
#include <QDeadlineTimer>
#include <QHostAddress>
#include <QRegularExpression>
#include <QTcpSocket>
#include <QtTest>
#include <optional>

namespace forkscope::test {

// What a raw client read: one HTTP response (1xx interim responses included, if asked).
struct RawReply
{
    int status = 0; // 0: no complete response before the client gave up
    QByteArray head;
    QByteArray body;
};

// Takes one complete response off the front of `buf` (we always send Content-Length, but
// for a 204).
inline std::optional<RawReply> takeResponse(QByteArray& buf)
{
    const qsizetype end = buf.indexOf("\r\n\r\n");
    if (end < 0)
        return std::nullopt;
    RawReply r;
    r.head = buf.left(end);
    r.status = r.head.mid(9, 3).toInt();
    static const QRegularExpression length("(?im)^content-length:\\s*(\\d+)\\s*$");
    const auto m = length.match(QString::fromLatin1(r.head));
    const qsizetype size = m.hasMatch() ? m.captured(1).toLongLong() : 0;
    if (buf.size() < end + 4 + size)
        return std::nullopt;
    r.body = buf.mid(end + 4, size);
    buf.remove(0, end + 4 + size);
    return r;
}

// The next response on `s`, waiting up to `waitMs` (the client's patience): a server that
// has not answered by then counts as no answer (status 0).
inline RawReply readResponse(QTcpSocket& s, QByteArray& buf, int waitMs = 15000,
                             bool interim = false)
{
    QDeadlineTimer deadline(waitMs);
    for (;;) {
        if (auto r = takeResponse(buf); r && (interim || r->status >= 200))
            return *r;
        else if (r)
            continue;
        const bool moved = QTest::qWaitFor(
            [&] { return s.bytesAvailable() > 0 || s.state() != QAbstractSocket::ConnectedState; },
            int(deadline.remainingTime()));
        if (!moved || s.bytesAvailable() == 0)
            return {};
        buf += s.readAll();
    }
}

// Sends raw bytes on a new connection and reads the first final response.
inline RawReply rawExchange(quint16 port, const QByteArray& request)
{
    QTcpSocket s;
    s.connectToHost(QHostAddress::LocalHost, port);
    if (!s.waitForConnected(5000))
        return {};
    s.write(request);
    QByteArray buf;
    return readResponse(s, buf);
}

} // namespace forkscope::test
