-- Strings that look like JSON Web Tokens (three base64url parts, the first {"…), and who holds each.
SELECT s.id, substr(s.text, 1, 40) AS start, s.length, referrers(s.id) AS held_by
FROM strings s
WHERE regexp_like(s.text, '^eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$')
LIMIT 100
