#pragma once

#include <QString>
#include <QUrl>
#include <optional>

namespace forkscope::config {

// Inline validation for the settings dialog (and anything else taking user input). Each
// returns nullopt when the value is acceptable, otherwise one sentence naming the field
// and what is wrong with the value.
// An http(s) URL with a host: what every endpoint setting and --rpc flag takes.
std::optional<QUrl> httpUrl(const QString& text);
std::optional<QString> validateEndpoint(const QString& text); // http(s) URL with a host
// A shared index's address: postgresql:// (or postgres://) with a host or a socket and a
// database name. The error never repeats a password.
std::optional<QString> validatePostgresUrl(const QString& text);
std::optional<QString> validateAddress(const QString& text); // 0x + 40 hex digits
// One line of the settings' factories (FactorySetting.h): address, event signature, argument.
std::optional<QString> validateFactory(const QString& line);
std::optional<QString> validateAbiFile(const QString& path); // readable ABI JSON with events
std::optional<QString> validateWholeNumber(const QString& text, const QString& field, quint64 min,
                                           quint64 max);
std::optional<QString> validateRatio(const QString& text); // 0 < r <= 1
// The ready ratio itself: a finite number above 0 and at most 1, else nullopt. "nan" and
// "inf" parse as doubles, and NaN fails every comparison, so finiteness is checked first.
std::optional<double> ratio(const QString& text);
// An environment id: 1 to 64 of A-Z a-z 0-9 . _ : - (it names files and appears in reports).
std::optional<QString> validateEnvironmentId(const QString& text);

} // namespace forkscope::config
