// Well-known referrer sources with the display name a dashboard shows. The channel of an AI assistant is not here:
// assistant hosts live in the classifier's tables (one source of truth), and `trafficSource` takes its verdict.
//
// Matching (see `lookupHost`):
// - `hosts`: the normalised referrer host equals the entry or is a subdomain of it ("l.facebook.com" → facebook.com).
// - `brands`: the host is exactly <brand>.<country suffix> — "google.de", "google.co.uk", "google.com.br" — and nothing
//   else, so "docs.google.com" stays a referral and "google.com.evil.example" matches nothing.
// - `apps`: Android package ids from `android-app://<package>/` referrers.
// - `utm`: extra utm_source spellings; the lowercased name and every host also match.

export type KnownChannel = "search" | "social" | "email";

export interface KnownSource {
  readonly name: string;
  readonly channel: KnownChannel;
  readonly hosts?: readonly string[];
  readonly brands?: readonly string[];
  readonly apps?: readonly string[];
  readonly utm?: readonly string[];
}

export const KNOWN_SOURCES: readonly KnownSource[] = [
  // Search engines
  { name: "Google", channel: "search", brands: ["google"], apps: ["com.google.android.googlequicksearchbox"], utm: ["google"] },
  { name: "Bing", channel: "search", hosts: ["bing.com"], apps: ["com.microsoft.bing"] },
  { name: "DuckDuckGo", channel: "search", hosts: ["duckduckgo.com"], apps: ["com.duckduckgo.mobile.android"], utm: ["ddg"] },
  { name: "Yahoo!", channel: "search", hosts: ["search.yahoo.com", "search.yahoo.co.jp"], utm: ["yahoo"] },
  { name: "Yandex", channel: "search", brands: ["yandex"], hosts: ["ya.ru"], apps: ["ru.yandex.searchplugin"] },
  { name: "Baidu", channel: "search", hosts: ["baidu.com", "m.baidu.com"], apps: ["com.baidu.searchbox"] },
  { name: "Ecosia", channel: "search", hosts: ["ecosia.org"], apps: ["com.ecosia.android"] },
  { name: "Brave Search", channel: "search", hosts: ["search.brave.com"], utm: ["brave"] },
  { name: "Qwant", channel: "search", hosts: ["qwant.com"] },
  { name: "Startpage", channel: "search", hosts: ["startpage.com"] },
  { name: "Naver", channel: "search", hosts: ["search.naver.com", "m.search.naver.com"] },
  { name: "Seznam", channel: "search", hosts: ["search.seznam.cz", "seznam.cz"] },
  { name: "Kagi", channel: "search", hosts: ["kagi.com"] },
  { name: "Sogou", channel: "search", hosts: ["sogou.com"] },
  { name: "360 Search", channel: "search", hosts: ["so.com"] },
  { name: "Ask", channel: "search", hosts: ["ask.com"] },
  { name: "AOL Search", channel: "search", hosts: ["search.aol.com"] },
  { name: "Mojeek", channel: "search", hosts: ["mojeek.com"] },

  // Social networks and messengers
  { name: "Facebook", channel: "social", hosts: ["facebook.com", "fb.com", "fb.me"], apps: ["com.facebook.katana", "com.facebook.lite"], utm: ["fb"] },
  { name: "Messenger", channel: "social", hosts: ["messenger.com"], apps: ["com.facebook.orca"] },
  { name: "Instagram", channel: "social", hosts: ["instagram.com"], apps: ["com.instagram.android"], utm: ["ig"] },
  { name: "X", channel: "social", hosts: ["x.com", "twitter.com", "t.co"], apps: ["com.twitter.android"], utm: ["twitter"] },
  { name: "LinkedIn", channel: "social", hosts: ["linkedin.com", "lnkd.in"], apps: ["com.linkedin.android"] },
  { name: "Reddit", channel: "social", hosts: ["reddit.com", "redd.it"], apps: ["com.reddit.frontpage"] },
  { name: "YouTube", channel: "social", hosts: ["youtube.com", "youtu.be"], apps: ["com.google.android.youtube"], utm: ["yt"] },
  { name: "Pinterest", channel: "social", brands: ["pinterest"], hosts: ["pin.it"], apps: ["com.pinterest"] },
  { name: "TikTok", channel: "social", hosts: ["tiktok.com"], apps: ["com.zhiliaoapp.musically", "com.ss.android.ugc.trill"] },
  { name: "Threads", channel: "social", hosts: ["threads.net", "threads.com"], apps: ["com.instagram.barcelona"] },
  { name: "Bluesky", channel: "social", hosts: ["bsky.app", "bsky.social"], apps: ["xyz.blueskyweb.app"], utm: ["bsky"] },
  {
    name: "Mastodon",
    channel: "social",
    hosts: ["mastodon.social", "mastodon.online", "mstdn.social", "mas.to", "fosstodon.org", "hachyderm.io", "infosec.exchange", "techhub.social", "mastodon.world"],
    apps: ["org.joinmastodon.android"],
  },
  { name: "Hacker News", channel: "social", hosts: ["news.ycombinator.com"], utm: ["hn", "hackernews"] },
  { name: "WhatsApp", channel: "social", hosts: ["whatsapp.com", "wa.me"], apps: ["com.whatsapp"] },
  { name: "Telegram", channel: "social", hosts: ["telegram.org", "t.me"], apps: ["org.telegram.messenger"] },
  { name: "Discord", channel: "social", hosts: ["discord.com", "discordapp.com"], apps: ["com.discord"] },
  { name: "Slack", channel: "social", hosts: ["slack.com"], apps: ["com.slack"] },
  { name: "Snapchat", channel: "social", hosts: ["snapchat.com"], apps: ["com.snapchat.android"] },
  { name: "Tumblr", channel: "social", hosts: ["tumblr.com"], apps: ["com.tumblr"] },
  { name: "Quora", channel: "social", hosts: ["quora.com"] },
  { name: "VK", channel: "social", hosts: ["vk.com"], apps: ["com.vkontakte.android"] },
  { name: "Weibo", channel: "social", hosts: ["weibo.com", "weibo.cn"] },
  { name: "Lemmy", channel: "social", hosts: ["lemmy.world", "lemmy.ml"] },
  { name: "Lobsters", channel: "social", hosts: ["lobste.rs"] },

  // Webmail and mail apps
  { name: "Gmail", channel: "email", hosts: ["mail.google.com"], apps: ["com.google.android.gm", "com.google.android.gm.lite"], utm: ["gmail"] },
  { name: "Outlook", channel: "email", hosts: ["outlook.live.com", "outlook.office.com", "outlook.office365.com", "outlook.cloud.microsoft"], apps: ["com.microsoft.office.outlook"] },
  { name: "Yahoo Mail", channel: "email", hosts: ["mail.yahoo.com", "mail.yahoo.co.jp"], apps: ["com.yahoo.mobile.client.android.mail"] },
  { name: "Proton Mail", channel: "email", hosts: ["mail.proton.me", "mail.protonmail.com"], apps: ["ch.protonmail.android"] },
  { name: "AOL Mail", channel: "email", hosts: ["mail.aol.com"] },
  { name: "iCloud Mail", channel: "email", hosts: ["mail.icloud.com"] },
  { name: "Yandex Mail", channel: "email", hosts: ["mail.yandex.ru", "mail.yandex.com"] },
  { name: "Zoho Mail", channel: "email", hosts: ["mail.zoho.com", "mail.zoho.eu"] },
  { name: "Fastmail", channel: "email", hosts: ["app.fastmail.com"] },
  { name: "Tuta", channel: "email", hosts: ["app.tuta.com", "mail.tutanota.com"] },
  { name: "GMX", channel: "email", hosts: ["gmx.net", "gmx.de", "gmx.com"] },
  { name: "WEB.DE", channel: "email", hosts: ["web.de"] },
  { name: "Mail.ru", channel: "email", hosts: ["e.mail.ru", "mail.ru"] },
];
