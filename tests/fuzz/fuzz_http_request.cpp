// HttpRequestReader, the local API's HTTP/1.1 request parser: the input is what a client
// sends on one connection (possibly several pipelined requests). It is read twice, whole
// and in pieces of sizes drawn from the input, with the local API's limits and with tiny
// ones, and both readings must give the same requests and the same refusal: the reader is
// fed whatever the socket hands over, so the split must not matter. Every request must keep
// within the limits, and its accessors must hold up.

#include "FuzzSupport.h"
#include "api/HttpRequestReader.h"
#include "api/LocalApi.h"

#include <QList>

using forkscope::api::HttpRequest;
using forkscope::api::HttpRequestReader;

namespace {

bool isTchar(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           QByteArrayView("!#$%&'*+-.^_`|~").contains(c);
}

// What one reading of a connection gave: its requests and how it ended.
struct Reading
{
    QList<HttpRequest> requests;
    HttpRequestReader::State last = HttpRequestReader::State::Incomplete;
    int errorStatus = 0;
    QString errorMessage;
};

QString show(const HttpRequest& r)
{
    QString s = QString::fromLatin1(r.method + ' ' + r.target) +
                QStringLiteral(" 1.%1, %2 headers, body %3 bytes")
                    .arg(r.minorVersion)
                    .arg(r.headers.size())
                    .arg(r.body.size());
    return s;
}

void checkRequest(const HttpRequest& r, const HttpRequestReader::Limits& limits)
{
    FUZZ_CHECK(!r.method.isEmpty(), show(r));
    for (char c : r.method)
        FUZZ_CHECK(isTchar(c), show(r));
    FUZZ_CHECK(!r.target.isEmpty(), show(r));
    for (char c : r.target)
        FUZZ_CHECK(c > 0x20 && c != 0x7f, show(r));
    FUZZ_CHECK(r.minorVersion == 0 || r.minorVersion == 1, show(r));
    FUZZ_CHECK(r.headers.size() <= limits.maxHeaders, show(r));
    FUZZ_CHECK(r.body.size() <= limits.maxBody, show(r));
    for (const auto& [name, value] : r.headers) {
        FUZZ_CHECK(!name.isEmpty() && name == name.toLower(), show(r));
        FUZZ_CHECK(value == value.trimmed(), show(r));
    }
    const QByteArray path = r.path();
    FUZZ_CHECK(path.isEmpty() || path.startsWith('/'), QString::fromLatin1(path));
    (void)r.keepAlive();
    (void)r.header("content-length");
}

// Feeds `input` in pieces whose sizes come from `sizes` (cycled; empty: all at once), as the
// server does: parse, take every complete request, feed the next piece.
Reading read(const QByteArray& input, const QByteArray& sizes,
             const HttpRequestReader::Limits& limits)
{
    HttpRequestReader reader(limits);
    Reading out;
    qsizetype pos = 0;
    qsizetype piece = 0;
    for (;;) {
        HttpRequestReader::State s = reader.parse();
        while (s == HttpRequestReader::State::Complete) {
            out.requests.append(reader.take());
            checkRequest(out.requests.back(), limits);
            s = reader.parse();
        }
        if (s == HttpRequestReader::State::Failed) {
            out.last = s;
            out.errorStatus = reader.error().status;
            out.errorMessage = reader.error().message;
            FUZZ_CHECK(out.errorStatus >= 400 && out.errorStatus < 600, out.errorMessage);
            FUZZ_CHECK(forkscope::fuzz::isOneLine(out.errorMessage), out.errorMessage);
            return out;
        }
        (void)reader.takeContinue();
        if (pos == input.size())
            return out;
        qsizetype n = input.size() - pos;
        if (!sizes.isEmpty())
            n = std::min<qsizetype>(n, 1 + uchar(sizes[piece++ % sizes.size()]) % 97);
        // The server never feeds more than a piece of 16 KiB at once.
        n = std::min<qsizetype>(n, 16 * 1024);
        reader.feed(QByteArrayView(input).sliced(pos, n));
        pos += n;
    }
}

void compare(const Reading& whole, const Reading& split)
{
    FUZZ_CHECK(whole.requests.size() == split.requests.size(),
               QStringLiteral("%1 requests read whole, %2 read in pieces")
                   .arg(whole.requests.size())
                   .arg(split.requests.size()));
    for (qsizetype i = 0; i < whole.requests.size(); ++i) {
        const HttpRequest& a = whole.requests[i];
        const HttpRequest& b = split.requests[i];
        FUZZ_CHECK(a.method == b.method && a.target == b.target &&
                       a.minorVersion == b.minorVersion && a.headers == b.headers &&
                       a.body == b.body,
                   show(a) + QStringLiteral(" vs ") + show(b));
    }
    FUZZ_CHECK(whole.last == split.last && whole.errorStatus == split.errorStatus &&
                   whole.errorMessage == split.errorMessage,
               QStringLiteral("whole: %1 %2; in pieces: %3 %4")
                   .arg(whole.errorStatus)
                   .arg(whole.errorMessage)
                   .arg(split.errorStatus)
                   .arg(split.errorMessage));
}

} // namespace

FUZZ_INIT

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const QByteArray input = forkscope::fuzz::bytes(data, size);
    // The piece sizes: a cheap hash of the input, so the same input always splits the same.
    QByteArray sizes(8, '\0');
    for (qsizetype i = 0; i < input.size(); ++i)
        sizes[i % 8] = char(uchar(sizes[i % 8]) * 31 + uchar(input[i]));

    HttpRequestReader::Limits api; // as the local API serves (LocalApiServer)
    api.maxBody = forkscope::api::LocalApi::kMaxBody;
    HttpRequestReader::Limits tiny;
    tiny.maxHeaderBytes = 200;
    tiny.maxHeaders = 4;
    tiny.maxBody = 40;
    for (const HttpRequestReader::Limits& limits : {api, tiny})
        compare(read(input, {}, limits), read(input, sizes, limits));
    return 0;
}
