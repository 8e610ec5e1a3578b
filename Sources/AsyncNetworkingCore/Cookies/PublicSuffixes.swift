/// A small built-in list of public suffixes — domains under which unrelated parties register
/// names — so that a server cannot set a cookie for all of them (`Domain=com`, `Domain=co.uk`,
/// `Domain=github.io`).
///
/// **This is not the full Public Suffix List** (publicsuffix.org, ~10,000 rules): it holds every
/// single-label domain (each top-level domain, whatever it is) and the multi-label suffixes below,
/// the most common ones. A cookie for another registry-controlled suffix (say `Domain=nom.br`) is
/// accepted as an ordinary domain cookie. Give ``CookieJar`` your own rules with
/// ``CookieJar/init(publicSuffixes:)`` when that matters.
enum PublicSuffixes {
    /// The built-in multi-label suffixes (lowercase, no leading dot).
    static let builtIn: Set<String> = [
        // Second-level registries.
        "co.uk", "org.uk", "ac.uk", "gov.uk", "ltd.uk", "plc.uk", "me.uk", "net.uk", "nhs.uk", "sch.uk",
        "com.au", "net.au", "org.au", "edu.au", "gov.au", "asn.au", "id.au",
        "co.jp", "ne.jp", "or.jp", "ac.jp", "go.jp", "gr.jp",
        "co.nz", "org.nz", "net.nz", "govt.nz", "ac.nz",
        "co.za", "org.za", "gov.za", "ac.za",
        "co.in", "net.in", "org.in", "gov.in", "ac.in", "firm.in", "gen.in", "ind.in",
        "com.br", "net.br", "org.br", "gov.br", "edu.br",
        "com.cn", "net.cn", "org.cn", "gov.cn", "edu.cn",
        "com.mx", "org.mx", "gob.mx", "com.ar", "com.tr", "com.tw", "com.hk", "com.sg", "com.my",
        "co.kr", "or.kr", "co.il", "org.il", "ac.il", "co.id", "or.id", "ac.id", "com.ua", "com.pl",
        "eu.com", "uk.com", "us.com",
        // Hosting platforms whose customers get sibling subdomains.
        "github.io", "githubusercontent.com", "gitlab.io", "herokuapp.com", "appspot.com",
        "blogspot.com", "cloudfront.net", "azurewebsites.net", "cloudapp.net", "netlify.app",
        "vercel.app", "pages.dev", "workers.dev", "web.app", "firebaseapp.com", "fly.dev",
        "onrender.com", "s3.amazonaws.com", "elasticbeanstalk.com", "readthedocs.io", "ngrok.io",
    ]

    /// Whether `domain` (lowercase, no leading dot) is a public suffix: a single label, built in,
    /// or in `extra`.
    static func isPublicSuffix(_ domain: String, extra: Set<String>) -> Bool {
        !domain.isEmpty && (!domain.contains(".") || builtIn.contains(domain) || extra.contains(domain))
    }
}
