-- Texts kept in more than one string object, by the bytes the copies waste (formats that keep string text).
SELECT text, count(*) AS copies, sum(bytes) - min(bytes) AS wasted
FROM strings
GROUP BY text
HAVING count(*) > 1
ORDER BY wasted DESC
LIMIT 20
