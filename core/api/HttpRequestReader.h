#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QList>
#include <QPair>
#include <QString>

namespace forkscope::api {

// One HTTP/1.x request as HttpRequestReader delivers it: header names lower-cased, values
// trimmed, the body de-chunked.
struct HttpRequest
{
    QByteArray method;
    QByteArray target; // as sent: "/metrics", "/?a=1" or an absolute URL
    int minorVersion = 1;
    QList<QPair<QByteArray, QByteArray>> headers;
    QByteArray body;

    // The first value of a header (name in lower case); empty when absent.
    QByteArray header(QByteArrayView name) const;
    // The target's path without its query ("/metrics"); empty for "*" or a malformed URL.
    QByteArray path() const;
    // Whether the client lets the connection stay open after the response: HTTP/1.1
    // unless it sent "Connection: close"; HTTP/1.0 never (keep-alive there is not worth it).
    bool keepAlive() const;
};

// Why a request was refused: the HTTP status to answer and one line naming the problem.
struct HttpError
{
    int status = 400;
    QString message;
};

// An incremental HTTP/1.1 request reader (RFC 9112) that never holds more than its limits:
// the request line and headers are refused with 431/414 once past maxHeaderBytes, a
// Content-Length above maxBody is refused with 413 as soon as the header is read, and a
// chunked body as soon as a chunk-size line would take it past maxBody, not after the
// body arrived. No I/O: the connection feeds it bytes, so it is testable as a function.
//
// Refused (each with a named HttpError): obsolete line folding, a header name that is not
// a token, control characters in a value, Content-Length that is not digits or disagrees
// with another Content-Length, Content-Length together with Transfer-Encoding (the request
// smuggling case), a transfer coding other than "chunked" (501), HTTP versions other than
// 1.0 and 1.1 (505). Bare LF line ends are accepted, as RFC 9112 allows.
class HttpRequestReader
{
public:
    struct Limits
    {
        qsizetype maxHeaderBytes = 16 * 1024; // request line + header lines (+ chunked trailers)
        int maxHeaders = 64;
        qsizetype maxBody = 64 * 1024; // after de-chunking
    };
    enum class State { Incomplete, Complete, Failed };

    explicit HttpRequestReader(Limits limits) : m_limits(limits) {}

    // Appends bytes and parses as far as they go. Parsing stops at a complete request; the
    // bytes after it (a pipelined request) stay buffered until take() and the next parse().
    // The caller bounds what it feeds at once; the reader bounds what it keeps.
    State feed(QByteArrayView bytes);
    State parse();
    // After Complete: the request. The reader then starts on the next one.
    HttpRequest take();
    // After Failed: why. The connection cannot be trusted any further.
    const HttpError& error() const { return m_error; }
    // What was read of the request under way: its method and target once the request line
    // was accepted, its headers as far as they came (so an error page can tell its path).
    const HttpRequest& partial() const { return m_request; }
    // True once, when the headers asked for "100 Continue", were accepted, and the body
    // is still to come: the connection then sends the interim response.
    bool takeContinue();
    // Whether part of a request has arrived (tells a slow request from an idle connection).
    bool inRequest() const { return m_phase != Phase::RequestLine || m_pos < m_buf.size(); }

private:
    enum class Phase {
        RequestLine,
        Headers,
        Body,
        ChunkSize,
        ChunkData,
        ChunkDataEnd,
        Trailers,
        Done,
        Failed
    };
    enum class Line { Ready, NeedMore, TooLong };

    Line nextLine(qsizetype maxLength, QByteArrayView* line);
    bool refuse(int status, const QString& message); // false, for the parse steps
    State fail(int status, const QString& message);
    bool parseRequestLine(QByteArrayView line);
    bool parseHeaderLine(QByteArrayView line);
    bool startBody();
    bool parseChunkSize(QByteArrayView line);
    void takeBodyBytes();

    Limits m_limits;
    QByteArray m_buf;
    qsizetype m_pos = 0; // parsed up to here
    Phase m_phase = Phase::RequestLine;
    qsizetype m_headerBytes = 0;
    int m_fieldCount = 0;      // headers and trailers
    qsizetype m_remaining = 0; // of the fixed body or of the current chunk
    bool m_expectContinue = false;
    HttpRequest m_request;
    HttpError m_error;
};

} // namespace forkscope::api
