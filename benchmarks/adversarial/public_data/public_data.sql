-- Counts from two public data sets, as an analyst would load them: the Palmer penguins
-- (344 penguins by species, island and study year) and the 2013 New York City departures
-- of nycflights13 (by origin airport: January, and the rest of the year).
CREATE TABLE penguin_counts (species TEXT, island TEXT, year INTEGER, n INTEGER);
INSERT INTO penguin_counts VALUES
  ('Adelie', 'Biscoe', 2007, 10), ('Adelie', 'Biscoe', 2008, 18), ('Adelie', 'Biscoe', 2009, 16),
  ('Adelie', 'Dream', 2007, 20), ('Adelie', 'Dream', 2008, 16), ('Adelie', 'Dream', 2009, 20),
  ('Adelie', 'Torgersen', 2007, 20), ('Adelie', 'Torgersen', 2008, 16),
  ('Adelie', 'Torgersen', 2009, 16),
  ('Gentoo', 'Biscoe', 2007, 34), ('Gentoo', 'Biscoe', 2008, 46), ('Gentoo', 'Biscoe', 2009, 44),
  ('Chinstrap', 'Dream', 2007, 26), ('Chinstrap', 'Dream', 2008, 18),
  ('Chinstrap', 'Dream', 2009, 24);
CREATE TABLE departures (origin TEXT, period TEXT, n INTEGER);
INSERT INTO departures VALUES
  ('EWR', 'January', 9893), ('EWR', 'February to December', 110942),
  ('JFK', 'January', 9161), ('JFK', 'February to December', 102118),
  ('LGA', 'January', 7950), ('LGA', 'February to December', 96712);
