#include "HttpRequestReader.h"

#include <QUrl>

#include <algorithm>
#include <cctype>

namespace forkscope::api {

namespace {
// A chunk-size line is hex digits and optional extensions; 1 KiB is generous.
constexpr qsizetype kMaxChunkSizeLine = 1024;

bool isTchar(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           QByteArrayView("!#$%&'*+-.^_`|~").contains(c);
}

bool isToken(QByteArrayView v)
{
    if (v.isEmpty())
        return false;
    for (char c : v)
        if (!isTchar(c))
            return false;
    return true;
}

QByteArrayView trimmedOws(QByteArrayView v)
{
    while (!v.isEmpty() && (v.front() == ' ' || v.front() == '\t'))
        v = v.sliced(1);
    while (!v.isEmpty() && (v.back() == ' ' || v.back() == '\t'))
        v.chop(1);
    return v;
}

// Client bytes in a message: bounded, printable.
QString shown(QByteArrayView v)
{
    QString out;
    for (char c : v.first(std::min<qsizetype>(v.size(), 60)))
        out += (c >= 0x20 && c < 0x7f) ? QChar::fromLatin1(c) : QChar(u'?');
    if (v.size() > 60)
        out += QStringLiteral("...");
    return out;
}
} // namespace

QByteArray HttpRequest::header(QByteArrayView name) const
{
    for (const auto& [n, v] : headers)
        if (n == name)
            return v;
    return {};
}

QByteArray HttpRequest::path() const
{
    if (target.startsWith('/')) {
        qsizetype end = target.indexOf('?');
        const qsizetype hash = target.indexOf('#');
        if (hash >= 0 && (end < 0 || hash < end))
            end = hash;
        return end < 0 ? target : target.left(end);
    }
    // Absolute form, which RFC 9112 §3.2.2 says a server must accept; without a host
    // ("http:/metrics") it is invalid and must be rejected (RFC 9110 §4.2.1).
    const QUrl url = QUrl::fromEncoded(target, QUrl::StrictMode);
    if (!url.isValid() || url.scheme().isEmpty() || url.host().isEmpty())
        return {};
    const QByteArray p = url.path(QUrl::FullyEncoded).toLatin1();
    return p.isEmpty() ? QByteArray("/") : p;
}

bool HttpRequest::keepAlive() const
{
    if (minorVersion == 0)
        return false;
    for (const auto& [n, v] : headers)
        if (n == "connection")
            for (const QByteArray& token : v.split(','))
                if (token.trimmed().compare("close", Qt::CaseInsensitive) == 0)
                    return false;
    return true;
}

HttpRequestReader::State HttpRequestReader::feed(QByteArrayView bytes)
{
    m_buf.append(bytes);
    return parse();
}

bool HttpRequestReader::refuse(int status, const QString& message)
{
    m_phase = Phase::Failed;
    m_error = {status, message};
    return false;
}

HttpRequestReader::State HttpRequestReader::fail(int status, const QString& message)
{
    refuse(status, message);
    return State::Failed;
}

HttpRequestReader::Line HttpRequestReader::nextLine(qsizetype maxLength, QByteArrayView* line)
{
    const qsizetype lf = m_buf.indexOf('\n', m_pos);
    if (lf < 0)
        return m_buf.size() - m_pos > maxLength ? Line::TooLong : Line::NeedMore;
    if (lf + 1 - m_pos > maxLength)
        return Line::TooLong;
    QByteArrayView l(m_buf.constData() + m_pos, lf - m_pos);
    if (l.endsWith('\r'))
        l.chop(1);
    *line = l;
    m_pos = lf + 1;
    return Line::Ready;
}

HttpRequestReader::State HttpRequestReader::parse()
{
    // Drop what is parsed once per call, not per line: a body of 1-byte chunks stays linear.
    if (m_pos > 0) {
        m_buf.remove(0, m_pos);
        m_pos = 0;
    }
    for (;;) {
        switch (m_phase) {
        case Phase::Done:
            return State::Complete;
        case Phase::Failed:
            return State::Failed;
        case Phase::RequestLine:
        case Phase::Headers:
        case Phase::Trailers: {
            const qsizetype before = m_pos;
            QByteArrayView line;
            const Line got = nextLine(m_limits.maxHeaderBytes - m_headerBytes, &line);
            if (got == Line::NeedMore)
                return State::Incomplete;
            if (got == Line::TooLong)
                return m_phase == Phase::RequestLine
                           ? fail(414, QStringLiteral("request line longer than %1 bytes")
                                           .arg(m_limits.maxHeaderBytes))
                           : fail(431, QStringLiteral("request headers larger than %1 bytes")
                                           .arg(m_limits.maxHeaderBytes));
            m_headerBytes += m_pos - before;
            if (m_phase == Phase::RequestLine) {
                // RFC 9112 §2.2: empty lines before a request line are ignored (they still
                // count against the header budget).
                if (!line.isEmpty() && parseRequestLine(line))
                    m_phase = Phase::Headers;
            } else if (line.isEmpty()) {
                if (m_phase == Phase::Trailers)
                    m_phase = Phase::Done;
                else
                    startBody();
            } else if (m_phase == Phase::Headers) {
                parseHeaderLine(line);
            } else if (++m_fieldCount > m_limits.maxHeaders) { // trailers: counted, ignored
                refuse(431, QStringLiteral("more than %1 header and trailer fields")
                                .arg(m_limits.maxHeaders));
            }
            break;
        }
        case Phase::Body:
        case Phase::ChunkData:
            takeBodyBytes();
            if (m_remaining > 0)
                return State::Incomplete;
            m_phase = m_phase == Phase::Body ? Phase::Done : Phase::ChunkDataEnd;
            break;
        case Phase::ChunkDataEnd: {
            const qsizetype left = m_buf.size() - m_pos;
            if (left >= 1 && m_buf.at(m_pos) == '\n') {
                m_pos += 1;
            } else if (left >= 2 && m_buf.at(m_pos) == '\r' && m_buf.at(m_pos + 1) == '\n') {
                m_pos += 2;
            } else if (left >= 2 || (left == 1 && m_buf.at(m_pos) != '\r')) {
                return fail(400, QStringLiteral("chunk data longer than its chunk size"));
            } else {
                return State::Incomplete;
            }
            m_phase = Phase::ChunkSize;
            break;
        }
        case Phase::ChunkSize: {
            QByteArrayView line;
            const Line got = nextLine(kMaxChunkSizeLine, &line);
            if (got == Line::NeedMore)
                return State::Incomplete;
            if (got == Line::TooLong)
                return fail(
                    400,
                    QStringLiteral("chunk-size line longer than %1 bytes").arg(kMaxChunkSizeLine));
            parseChunkSize(line);
            break;
        }
        }
    }
}

bool HttpRequestReader::parseRequestLine(QByteArrayView line)
{
    const QList<QByteArray> parts = line.toByteArray().split(' ');
    if (parts.size() != 3)
        return refuse(400, QStringLiteral("malformed request line \"%1\" (expected METHOD TARGET "
                                          "HTTP/1.1)")
                               .arg(shown(line)));
    if (!isToken(parts[0]))
        return refuse(400, QStringLiteral("malformed method \"%1\"").arg(shown(parts[0])));
    for (char c : parts[1])
        if (c <= 0x20 || c == 0x7f)
            return refuse(400,
                          QStringLiteral("malformed request target \"%1\"").arg(shown(parts[1])));
    if (parts[1].isEmpty())
        return refuse(400, QStringLiteral("empty request target"));
    const QByteArray& version = parts[2];
    if (version == "HTTP/1.1" || version == "HTTP/1.0") {
        m_request.minorVersion = version.back() - '0';
    } else if (version.size() == 8 && version.startsWith("HTTP/") &&
               std::isdigit(uchar(version[5])) && version[6] == '.' &&
               std::isdigit(uchar(version[7]))) {
        return refuse(505, QStringLiteral("HTTP version %1 is not supported (1.0 and 1.1 are)")
                               .arg(shown(version)));
    } else {
        return refuse(400, QStringLiteral("malformed HTTP version \"%1\"").arg(shown(version)));
    }
    m_request.method = parts[0];
    m_request.target = parts[1];
    return true;
}

bool HttpRequestReader::parseHeaderLine(QByteArrayView line)
{
    if (line.front() == ' ' || line.front() == '\t')
        return refuse(400, QStringLiteral("obsolete line folding in the headers (RFC 9112 §5.2)"));
    const qsizetype colon = line.indexOf(':');
    const QByteArrayView name = colon < 0 ? line : line.first(colon);
    if (colon < 0 || !isToken(name))
        return refuse(400, QStringLiteral("malformed header line \"%1\"").arg(shown(line)));
    const QByteArrayView value = trimmedOws(line.sliced(colon + 1));
    for (char c : value)
        if ((uchar(c) < 0x20 && c != '\t') || c == 0x7f)
            return refuse(400, QStringLiteral("control character in header %1").arg(shown(name)));
    if (++m_fieldCount > m_limits.maxHeaders)
        return refuse(431, QStringLiteral("more than %1 header fields").arg(m_limits.maxHeaders));
    m_request.headers.append({name.toByteArray().toLower(), value.toByteArray()});
    return true;
}

bool HttpRequestReader::startBody()
{
    QList<QByteArray> codings;
    QList<QByteArray> lengths;
    for (const auto& [n, v] : std::as_const(m_request.headers)) {
        if (n != "transfer-encoding" && n != "content-length")
            continue;
        for (const QByteArray& part : v.split(',')) {
            const QByteArray item = part.trimmed();
            if (n == "content-length")
                lengths << item;
            else if (!item.isEmpty())
                codings << item.toLower();
        }
    }
    if (!codings.isEmpty()) {
        if (!lengths.isEmpty())
            return refuse(400, QStringLiteral("both Content-Length and Transfer-Encoding: send one "
                                              "of them"));
        if (m_request.minorVersion == 0)
            return refuse(400, QStringLiteral("Transfer-Encoding in an HTTP/1.0 request"));
        if (codings.last() != "chunked")
            return refuse(400, QStringLiteral("Transfer-Encoding \"%1\" does not end with chunked, "
                                              "so the body has no length")
                                   .arg(shown(codings.join(", "))));
        if (codings.size() > 1)
            return refuse(501, QStringLiteral("transfer coding \"%1\" is not supported (only "
                                              "chunked is)")
                                   .arg(shown(codings.first())));
        m_phase = Phase::ChunkSize;
    } else if (!lengths.isEmpty()) {
        QByteArrayView digits;
        for (const QByteArray& l : std::as_const(lengths)) {
            if (l.isEmpty() ||
                !std::all_of(l.begin(), l.end(), [](char c) { return c >= '0' && c <= '9'; }))
                return refuse(
                    400,
                    QStringLiteral("Content-Length \"%1\" is not a number of bytes").arg(shown(l)));
            QByteArrayView significant(l);
            while (significant.size() > 1 && significant.front() == '0')
                significant = significant.sliced(1);
            if (!digits.isNull() && significant != digits)
                return refuse(400, QStringLiteral("conflicting Content-Length values"));
            digits = significant;
        }
        // Refused from the header alone: the client learns it at once, not after a timeout.
        if (digits.size() > 18 || digits.toLongLong() > m_limits.maxBody)
            return refuse(413, QStringLiteral("request body of %1 bytes is larger than %2")
                                   .arg(shown(digits))
                                   .arg(m_limits.maxBody));
        m_remaining = digits.toLongLong();
        m_phase = m_remaining > 0 ? Phase::Body : Phase::Done;
    } else {
        m_phase = Phase::Done;
    }
    m_expectContinue = m_phase != Phase::Done && m_request.minorVersion >= 1 &&
                       m_request.header("expect").compare("100-continue", Qt::CaseInsensitive) == 0;
    return true;
}

bool HttpRequestReader::parseChunkSize(QByteArrayView line)
{
    const qsizetype semicolon = line.indexOf(';'); // chunk extensions are ignored
    const QByteArrayView hex = trimmedOws(semicolon < 0 ? line : line.first(semicolon));
    if (hex.isEmpty())
        return refuse(400, QStringLiteral("malformed chunk size \"%1\"").arg(shown(line)));
    const qint64 room = m_limits.maxBody - m_request.body.size();
    qint64 size = 0;
    for (char c : hex) {
        const int digit = QByteArrayView("0123456789abcdef").indexOf(char(std::tolower(c)));
        if (digit < 0)
            return refuse(400, QStringLiteral("malformed chunk size \"%1\"").arg(shown(line)));
        size = size * 16 + digit;
        // Refused from the chunk-size line: the chunk itself is never waited for.
        if (size > room)
            return refuse(
                413,
                QStringLiteral("chunked request body larger than %1 bytes").arg(m_limits.maxBody));
    }
    m_remaining = size;
    m_phase = size > 0 ? Phase::ChunkData : Phase::Trailers;
    return true;
}

void HttpRequestReader::takeBodyBytes()
{
    const qsizetype n = std::min(m_remaining, m_buf.size() - m_pos);
    m_request.body.append(m_buf.constData() + m_pos, n);
    m_pos += n;
    m_remaining -= n;
}

bool HttpRequestReader::takeContinue()
{
    if (!m_expectContinue)
        return false;
    m_expectContinue = false;
    // Only while nothing of the body has come: a client that did not wait needs no prompt.
    return (m_phase == Phase::Body || m_phase == Phase::ChunkSize) && m_request.body.isEmpty() &&
           m_pos == m_buf.size();
}

HttpRequest HttpRequestReader::take()
{
    HttpRequest r = std::move(m_request);
    m_request = {};
    m_phase = Phase::RequestLine;
    m_headerBytes = 0;
    m_fieldCount = 0;
    m_remaining = 0;
    m_expectContinue = false;
    return r;
}

} // namespace forkscope::api
