#pragma once

#include <QObject>

namespace forkscope::ui {

// The one time range every chart panel shows, as in Grafana: a span (1 min ... 24 h, or
// All) that follows the newest data, or a view the user dragged or zoomed to. Panels
// report how far their data reaches and draw exactly the view this gives them, so "5 min"
// is five minutes on every panel.
class TimeRange : public QObject
{
    Q_OBJECT
public:
    // The spans offered, in seconds; 0 is All (from the oldest sample any panel keeps).
    static QList<double> presets() { return {60, 300, 3600, 24 * 3600, 0}; }
    static constexpr double kDefaultSpanSecs = 300;
    // Room right of the newest sample, so the line's end is not on the frame.
    static constexpr double kRightPadSecs = 5;
    // A drag or zoom narrower than this is a slip, not a view.
    static constexpr double kMinViewSecs = 2;

    explicit TimeRange(QObject* parent = nullptr);

    double spanSecs() const { return m_span; }
    // Choosing a span follows live again (as Grafana's picker returns to "now").
    void setSpanSecs(double secs);
    bool followLive() const { return m_follow; }
    void setFollowLive(bool on);
    // A panel's data reaches from `earliest` to `latest` (seconds since the epoch).
    void noteData(double earliest, double latest);
    // The clock moved without a sample (sparse data, like reorg bars).
    void noteNow(double timeSecs);
    // The user dragged or zoomed a chart: every panel shows this, and following stops.
    void setView(double lower, double upper);
    // Every sample kept, oldest to newest; stops following.
    void fit();
    double lower() const { return m_lower; }
    double upper() const { return m_upper; }
    double latest() const { return m_latest; }
    double earliest() const { return m_earliest; }
    // What the view shows, in words ("the last 5 min", "12:00:03 to 12:04:10").
    QString describe() const;

signals:
    void viewChanged(double lower, double upper);
    void followLiveChanged(bool on);
    void spanChanged(double secs);

private:
    void follow();
    void show(double lower, double upper);

    double m_span = kDefaultSpanSecs;
    bool m_follow = true;
    double m_earliest = 0; // 0: no data yet
    double m_latest = 0;
    double m_lower = 0;
    double m_upper = 0;
};

} // namespace forkscope::ui
